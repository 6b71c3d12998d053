"""Nothing leaves the machine (issue 19 §3): every DuckDB connection is made offline (no
extension installed or loaded behind the user's back, no HTTP file system), a CSV in
another encoding is decoded by our own decoder instead of DuckDB's encodings extension,
Spark starts with its local address and host name set, and the command line, run under
``strace`` for each engine, opens no socket but AF_UNIX or loopback and asks no DNS."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import paths
from helpers import TEST_SPARK_CONF, run_cli
from tklscore.core.errors import InputError

SRC = paths.SRC
QI, SA = "Job,City,Gender", "Disease,Medication,Age"


def cp1252_source(data_dir: Path, folder: Path) -> tuple[Path, Path]:
    """The thesis table with a city written Montréal, as UTF-8 and as Windows-1252."""
    text = (data_dir / "thesis_table_3_1.csv").read_text(encoding="utf-8").replace("Calgary", "Montréal")
    assert "Montréal" in text
    utf8, cp1252 = folder / "source-utf8.csv", folder / "source-cp1252.csv"
    utf8.write_text(text, encoding="utf-8")
    cp1252.write_bytes(text.encode("cp1252"))
    return utf8, cp1252


def score_args(data_dir: Path, source: Path) -> list[str]:
    return ["score", str(source), "--rows", "5,0,2,1", "--id-column", "id", "--qi", QI, "--sa", SA,
            "--continuous", "Age", "--weights", str(data_dir / "thesis_table_4_2_weights.csv"), "--format", "json"]


# --------------------------------------------------------------------------- DuckDB offline

def test_every_duckdb_connection_is_made_by_the_offline_connect():
    """No module but duckdb_engine.connect calls duckdb.connect, and no SQL installs or loads an extension."""
    calls = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "connect" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "duckdb":
                calls.append(path.relative_to(SRC).as_posix())
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and re.search(r"\b(INSTALL|LOAD)\s+\w+", node.value) and "SET" not in node.value:
                pytest.fail(f"{path}: SQL that installs or loads an extension: {node.value!r}")
    assert calls == ["core/engines/duckdb_engine.py"]


def test_the_connection_never_installs_loads_or_fetches():
    import duckdb

    from tklscore.core.engines.duckdb_engine import DuckDBBackend, connect

    con = connect()
    settings = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN "
                                "('autoinstall_known_extensions', 'autoload_known_extensions', "
                                "'allow_community_extensions')").fetchall())
    assert settings == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false",
                        "allow_community_extensions": "false"}
    with pytest.raises(duckdb.Error, match='File system "HTTPFileSystem" has been disabled'):
        con.execute("SET disabled_filesystems = ''")     # disabled for good (DuckDB does not show it as a setting)
    with pytest.raises(duckdb.Error):
        con.execute("SELECT * FROM read_csv('https://example.org/x.csv')").fetchall()
    with pytest.raises(duckdb.Error):
        con.execute("SELECT * FROM read_csv('x.csv', encoding = 'cp1252')").fetchall()   # no encodings extension
    with DuckDBBackend() as backend:
        value = backend.con.execute("SELECT current_setting('autoinstall_known_extensions')").fetchone()[0]
        assert value is False


def test_duckdb_reads_cp1252_through_our_decoder_as_memory_does(capsys, tmp_path, data_dir):
    utf8, cp1252 = cp1252_source(data_dir, tmp_path)
    code, memory, err = run_cli(capsys, score_args(data_dir, utf8))
    assert code == 0, err
    for engine in (["--engine", "memory"], ["--engine", "duckdb"]):
        code, out, err = run_cli(capsys, score_args(data_dir, cp1252) + ["--encoding", "cp1252"] + engine)
        assert code == 0, err
        assert json.loads(out)["scores"] == pytest.approx(json.loads(memory)["scores"], rel=1e-12)


def test_the_decoded_copy_is_exact_and_in_the_work_folder(tmp_path, data_dir):
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    _, cp1252 = cp1252_source(data_dir, tmp_path)
    with DuckDBBackend() as backend:
        scan = backend.scan(str(cp1252), encoding="cp1252")
        values = backend.fetch(f"SELECT City FROM {scan.relation} ORDER BY __rid")["City"].tolist()
        assert values == pd.read_csv(cp1252, encoding="cp1252", dtype=str)["City"].tolist()
        assert "Montréal" in values
        copies = list(backend.folder.glob("decoded-*.csv"))
        assert len(copies) == 1 and copies[0].read_text(encoding="utf-8") == cp1252.read_bytes().decode("cp1252")
        folder = backend.folder
    assert not folder.exists()


def test_a_byte_the_encoding_lacks_is_named_by_its_line_never_quoted(tmp_path):
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"a,b\r\nx,1\r\nsecret\x81value,2\r\n")
    with DuckDBBackend() as backend:
        with pytest.raises(InputError) as caught:
            backend.scan(str(bad), encoding="cp1252")
    assert str(caught.value) == (f"{bad}, row 3: cannot be decoded as cp1252: byte 0x81 is not valid there "
                                 f"(give the file's real encoding, or save it as UTF-8)")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        with DuckDBBackend() as backend:
            backend.scan(str(bad), encoding="klingon")


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 1 << 20])
def test_transcoding_counts_lines_across_chunks(tmp_path, chunk):
    from tklscore.core.files.text import transcode_to_utf8

    source = tmp_path / "s.csv"
    source.write_bytes("a\r\nb\rc\nMontréal\r\n\r\nz\x81".encode("latin-1").replace(b"\xe9", b"\xe9"))
    with pytest.raises(InputError) as caught:
        transcode_to_utf8(source, tmp_path / "o.csv", "cp1252", "s.csv", chunk=chunk)
    assert caught.value.row == 6
    source.write_bytes("Montréal,Zürich\r\n€\n".encode("cp1252"))
    transcode_to_utf8(source, tmp_path / "o.csv", "cp1252", "s.csv", chunk=chunk)
    assert (tmp_path / "o.csv").read_bytes() == "Montréal,Zürich\r\n€\n".encode("utf-8")


# --------------------------------------------------------------------------- the network trace

NETWORK_CALLS = "socket,connect,bind,sendto,sendmsg,sendmmsg"
LOCAL_FAMILIES = {"AF_UNIX", "AF_LOCAL", "AF_INET", "AF_INET6", "AF_NETLINK"}   # inet: checked per address below
_CALL = re.compile(r"^(?:\[pid\s+)?(\d+)\]?\s+(\w+)\((.*)$")
_V4 = re.compile(r'sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
_V6 = re.compile(r'sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([^"]+)"')


def _loopback(address: str) -> bool:
    address = address.removeprefix("::ffff:")
    return address.startswith("127.") or address == "::1"


def network_offences(trace: str) -> list[str]:
    """The lines of an ``strace -e trace=network`` log that reach beyond the machine: a
    socket of another family than AF_UNIX/AF_NETLINK/IP, an IP address that is not
    loopback (127.0.0.0/8, ::1) in a connect, bind or send, and any DNS (port 53)."""
    offences = []
    for line in trace.splitlines():
        match = _CALL.match(line.strip())
        if not match:
            continue
        call, arguments = match.group(2), match.group(3)
        if call == "socket":
            family = re.match(r"(\w+)", arguments).group(1)
            if family not in LOCAL_FAMILIES:
                offences.append(line)
        elif call in ("connect", "bind", "sendto", "sendmsg", "sendmmsg"):
            for port, address in _V4.findall(arguments) + _V6.findall(arguments):
                if int(port) == 53 or not _loopback(address):
                    offences.append(line)
                    break
    return offences


def test_the_trace_check_catches_what_left_the_machine_before():
    """Lines as strace wrote them for DuckDB's extension look-up and Spark's reverse DNS."""
    dns = ('28219 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}, 16) = 0')
    local_dns = '7 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 0'
    out = ('31 sendto(9, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), '
           'inet_pton(AF_INET6, "2606:4700::1", &sin6_addr), sin6_scope_id=0}, 28) = 1')
    wildcard = '8 bind(4, {sa_family=AF_INET, sin_port=htons(7077), sin_addr=inet_addr("0.0.0.0")}, 16) = 0'
    packet = "9 socket(AF_PACKET, SOCK_RAW, 768) = 3"
    fine = ['28870 bind(283, {sa_family=AF_INET6, sin6_port=htons(0), sin6_flowinfo=htonl(0), '
            'inet_pton(AF_INET6, "::ffff:127.0.0.1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
            '28643 connect(3, {sa_family=AF_INET, sin_port=htons(35129), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
            '28643 connect(8, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT',
            "28643 socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, NETLINK_ROUTE) = 4",
            '28643 sendto(3, "c\\no0\\nset", 37, 0, NULL, 0) = 37']
    assert network_offences("\n".join([dns, local_dns, out, wildcard, packet, *fine])) == \
        [dns, local_dns, out, wildcard, packet]


def strace_command(log: Path) -> list[str]:
    strace = shutil.which("strace")
    assert strace, "strace is missing: bash scripts/setup.sh test installs it"
    help_text = subprocess.run([strace, "-h"], capture_output=True, text=True).stdout
    fast = ["--seccomp-bpf"] if "--seccomp-bpf" in help_text else []   # stop only at the traced calls
    return [strace, "-f", *fast, "-qq", "-e", f"trace={NETWORK_CALLS}", "-o", str(log)]


def clean_environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a user's shell: no Spark settings of ours inherited from this process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    return dict(env, TMPDIR=str(tmp_path), PYTHONWARNINGS="ignore")


@pytest.fixture(scope="module")
def expected(tmp_path_factory, data_dir) -> dict:
    """The command line's scores and records of the UTF-8 source, untraced and in this process (one
    run for every engine's trace; the traced runs are the subprocesses)."""
    from tklscore.cli.main import main

    utf8, _ = cp1252_source(data_dir, tmp_path_factory.mktemp("expected"))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(score_args(data_dir, utf8)) == 0
    return json.loads(out.getvalue())


@pytest.mark.parametrize("engine", ["memory", "duckdb", "duckdb-cp1252", "spark"])
def test_no_connection_leaves_the_machine(tmp_path, data_dir, expected, engine):
    """One run of the command line per engine under strace; Spark in local mode (its JVM,
    its Python workers) included. Spark's run is also the command line's typed Parquet source read
    and its records written by Spark, both given as ``file://`` URIs as Spark takes them
    (``hdfs://`` and ``s3a://`` take the same road): the scores and records are memory's."""
    utf8, cp1252 = cp1252_source(data_dir, tmp_path)
    name, _, variant = engine.partition("-")
    source, extra = (cp1252, ["--encoding", "cp1252"]) if variant else (utf8, [])
    out = tmp_path / "records.parquet"
    if name == "spark":
        frame = pd.read_csv(utf8, dtype=str, keep_default_na=False)
        frame.assign(id=frame["id"].astype("int64"), Age=frame["Age"].astype("int64")).to_parquet(
            tmp_path / "source.parquet", index=False)
        source = (tmp_path / "source.parquet").as_uri()
        extra += ["--output", out.as_uri()]   # Spark writes a folder of part files
        # the JVM's compiler and collector settings of the tests: half the CPU, the same sockets; one
        # shuffle partition (local mode makes two per core): a task per stage, not four, the same
        # numbers (measured: 35 -> 22 CPU-s of the traced tree, its JVM included)
        conf = TEST_SPARK_CONF | {"spark.sql.shuffle.partitions": "1"}
        extra += [arg for key, value in conf.items() for arg in ("--spark-conf", f"{key}={value}")]
    log = tmp_path / "network.log"
    # the traced process first opens (and closes) one AF_UNIX socket: proof that the trace sees it
    run = ("import socket, sys; socket.socket(socket.AF_UNIX).close(); from tklscore.cli.main import main; "
           "sys.exit(main(sys.argv[1:]))")
    command = [*strace_command(log), sys.executable, "-c", run, *score_args(data_dir, source), *extra,
               "--engine", name]
    done = subprocess.run(command, capture_output=True, text=True, env=clean_environment(tmp_path), timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout)
    assert summary["scores"] == pytest.approx(expected["scores"], rel=1e-12)
    if name == "spark":
        assert summary["records_file"] == out.as_uri()
        written = pd.read_parquet(out)   # in published order
        assert written["id"].tolist() == ["5", "0", "2", "1"] == [r["id"] for r in expected["records"]]
        assert written["tkl"].tolist() == pytest.approx([r["tkl"] for r in expected["records"]], rel=1e-12)
    trace = log.read_text(errors="replace")
    assert re.search(r"^\d+\s+socket\(AF_UNIX", trace, re.MULTILINE), "strace recorded nothing"
    if name == "spark":  # the trace did see Spark's own loopback traffic: the check is not vacuous
        assert re.search(r'connect\(\d+, \{sa_family=AF_INET6?, .*127\.0\.0\.1', trace)
    offences = network_offences(trace)
    assert offences == [], "\n".join(offences[:20])
