#!/usr/bin/env python3
"""A conventional Python asyncio streaming client (aiohttp), the kind most published LLM
benchmark harnesses use, measured the way gpumarket's harness measures itself: tokens
received, CPU time of the process, and how long a ready task waits for its event loop.

usage: other_client.py BASE_URL STREAMS SECONDS MAX_TOKENS  -> one JSON line
"""
import asyncio
import json
import resource
import sys
import time

import aiohttp


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def stream(session, url, body, stop, counter):
    while not stop.is_set():
        async with session.post(url, json=body) as response:
            seen = 0
            async for raw in response.content:
                line = raw.decode().strip()
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                chunk = json.loads(line[6:])
                usage = chunk.get("usage") or {}
                done = usage.get("completion_tokens", seen)
                counter[0] += done - seen
                seen = done
                if stop.is_set():
                    return


async def lag_probe(stop, lags):
    # The same measure as gpumarket's: how long a ready task waits for the event loop.
    while not stop.is_set():
        ready = time.monotonic()
        await asyncio.sleep(0)
        lags.append((time.monotonic() - ready) * 1000)
        await asyncio.sleep(0.001)


async def main(base, streams, seconds, max_tokens):
    url = f"{base}/v1/completions"
    counter, lags = [0], []
    stop = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        bodies = [
            {"model": "stress", "prompt": f"[{i}] hello", "max_tokens": max_tokens, "stream": True,
             "ignore_eos": True,
             "stream_options": {"include_usage": True, "continuous_usage_stats": True}}
            for i in range(streams)
        ]
        tasks = [asyncio.create_task(stream(session, url, b, stop, counter)) for b in bodies]
        await asyncio.sleep(1.0)  # let every stream start
        start_tokens, start_cpu, start = counter[0], cpu_seconds(), time.monotonic()
        probe = asyncio.create_task(lag_probe(stop, lags))
        await asyncio.sleep(seconds)
        tokens, cpu, elapsed = counter[0] - start_tokens, cpu_seconds() - start_cpu, time.monotonic() - start
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, probe, return_exceptions=True)
    lags.sort()
    p99 = lags[int(0.99 * (len(lags) - 1))] if lags else 0.0
    print(json.dumps({"streams": streams, "tok_s": tokens / elapsed, "cpu_percent": cpu / elapsed * 100,
                      "cpu_ms_per_1k_tokens": cpu * 1000 / max(tokens, 1) * 1000, "timer_lag_p99_ms": p99}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])))
