#!/usr/bin/env bash
# Set up and start the tkl-Score Workbench on the built-in example (the thesis' Table 3.1,
# its Scenario 1 release and its tkl-Data Model). Extra arguments go to `tklscore gui`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# Qt's X11 platform plugin needs a few X libraries that a bare machine may lack.
plugin=$(.venv/bin/python -c 'import PySide6, pathlib; print(pathlib.Path(PySide6.__file__).parent / "Qt/plugins/platforms/libqxcb.so")')
if ldd "$plugin" 2>/dev/null | grep -q "not found"; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "Installing the X11 libraries Qt needs (libxcb-*, libxkbcommon-x11)..."
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 \
      libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-randr0 libxcb-xinerama0 libxkbcommon-x11-0 \
      libegl1 libgl1 libfontconfig1 libdbus-1-3 >/dev/null
  else
    echo "Qt needs these missing libraries:" >&2
    ldd "$plugin" | grep "not found" >&2
  fi
fi

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  # No screen: run the window on a virtual one (Xvfb) so that it still starts for real.
  if ! command -v xvfb-run >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb xauth >/dev/null
  fi
  echo "No display found: starting the window on a virtual screen (Xvfb, 1600x1000)."
  exec xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/tklscore gui --example thesis "$@"
fi
exec .venv/bin/tklscore gui --example thesis "$@"
