#!/usr/bin/env bash
# Add the tkl-Score Workbench to the desktop's application menu (for this user):
# run from the unpacked dist/tklscore/ folder.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
APPS=${XDG_DATA_HOME:-$HOME/.local/share}/applications
ICONS=${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor
mkdir -p "$APPS" "$ICONS/256x256/apps" "$ICONS/scalable/apps"
cp "$HERE/share/icons/hicolor/256x256/apps/tklscore.png" "$ICONS/256x256/apps/"
cp "$HERE/share/icons/hicolor/scalable/apps/tklscore.svg" "$ICONS/scalable/apps/"
sed "s|^Exec=tklscore|Exec=$HERE/tklscore|" "$HERE/share/applications/tklscore.desktop" > "$APPS/tklscore.desktop"
echo "installed $APPS/tklscore.desktop"
