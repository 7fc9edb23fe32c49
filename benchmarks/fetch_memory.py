"""Peak memory of ``polistemics data fetch`` when the server sends a huge file.

A local HTTP server (its own process) answers overview.json with BODY_MB megabytes of spaces.
Each measurement runs in a fresh process and prints its peak RSS (``ru_maxrss``) and how it
ended: ``fetch_wahlomat`` with the default per-file limit (refused), and the download step with
a limit above the body (the whole body streams to disk), with and without a Content-Length.

    python benchmarks/fetch_memory.py --body-mb 300
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

SERVER = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
size = int(sys.argv[1])
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        if sys.argv[2] == "length":
            self.send_header("Content-Length", str(size))
        self.end_headers()
        chunk, left = b" " * 65536, size
        try:
            while left > 0:
                self.wfile.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
        except OSError:
            pass
    def log_message(self, *args):
        pass
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""

# With the default limit: the whole command. Above the body: the download step alone (the
# body is no JSON, and the command would fetch it six times).
FETCH = """
import resource, sys, time
from pathlib import Path
import httpx
from polistemics.sources.fetch import MAX_FILE_BYTES, _download, fetch_wahlomat
limit = int(sys.argv[3]) if sys.argv[3] != "default" else MAX_FILE_BYTES
started = time.perf_counter()
try:
    if sys.argv[3] == "default":
        fetch_wahlomat("2099/x", base_url=sys.argv[1], root=Path(sys.argv[2]))
    else:
        with httpx.Client() as client:
            target = Path(sys.argv[2]) / "overview.json"
            _download(client, sys.argv[1] + "/overview.json", target, limit)
    outcome = f"downloaded {target.stat().st_size / 2**20:,.0f} MiB to disk"
except Exception as exc:
    outcome = f"{type(exc).__name__}: {str(exc)[:90]}"
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"limit {limit / 2**20:,.0f} MiB: peak RSS {peak_mb:,.0f} MB, "
      f"{time.perf_counter() - started:.2f} s; {outcome}")
"""

IMPORT_ONLY = """
import resource, httpx, polistemics.sources.fetch
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--body-mb", type=int, default=300)
    args = parser.parse_args()
    size = args.body_mb * 2**20
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for header in ("length", "no-length"):
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(size), header], stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            url = f"http://127.0.0.1:{server.stdout.readline().strip()}"
            print(
                f"body {args.body_mb} MB, Content-Length {'sent' if header == 'length' else 'absent'}"
            )
            for limit in ("default", str(size + 2**20)):
                with tempfile.TemporaryDirectory() as root:
                    result = subprocess.run(
                        [sys.executable, "-c", FETCH, url, root, limit],
                        env=env,
                        capture_output=True,
                        text=True,
                        timeout=600,
                    )
                    print("  " + (result.stdout.strip() or result.stderr.strip()[-300:]))
        finally:
            server.terminate()
            server.wait()
            time.sleep(0.1)
    baseline = subprocess.run(
        [sys.executable, "-c", IMPORT_ONLY], env=env, capture_output=True, text=True, check=True
    )
    print(f"importing the fetch module alone: peak RSS {float(baseline.stdout):,.0f} MB")


if __name__ == "__main__":
    main()
