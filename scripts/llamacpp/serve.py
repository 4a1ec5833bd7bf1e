"""Serves a GGUF model with llama.cpp's own HTTP server code (PyPI `xllamacpp`, in-process):
the routes, SSE and `llamacpp:*` metrics of `llama-server`. Runs until SIGTERM or SIGINT.
Usage: serve.py MODEL.gguf PORT [--parallel N] [--ctx N] [--threads N]"""

import argparse
import signal
import threading

import xllamacpp


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("port", type=int)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {"tiny"}
    params.port = args.port
    params.n_parallel = args.parallel
    params.n_ctx = args.ctx
    params.endpoint_metrics = True
    params.endpoint_props = True
    params.endpoint_slots = True
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    server = xllamacpp.Server(params)
    print(f"listening on {server.listening_address}", flush=True)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: done.set())
    done.wait()


if __name__ == "__main__":
    main()
