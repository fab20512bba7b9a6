"""libCacheSim's LRU over a request trace: the oracle for Prestage's LRUCache.

Usage: python lru_misses.py TRACE EDGE_BYTES [SHIELD_BYTES]

TRACE is a text file of requests, one per line: "<object id> <size in bytes>". Each request is
looked up in an LRU cache of EDGE_BYTES (byte capacity; an object larger than the cache is never
stored). With SHIELD_BYTES, every edge miss is looked up in a second LRU of that capacity (a shield
behind the edge). Prints one JSON object: {"requests": N, "edgeMisses": M, "shieldMisses": S}
(shieldMisses only with SHIELD_BYTES).
"""
import json
import os
import sys

import libcachesim


def main():
    trace, edge_bytes = sys.argv[1], int(sys.argv[2])
    shield_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else None
    # libCacheSim warns on stderr for every object larger than the cache; the caller reads stdout.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    edge = libcachesim.LRU(cache_size=edge_bytes)
    shield = libcachesim.LRU(cache_size=shield_bytes) if shield_bytes is not None else None
    requests = edge_misses = shield_misses = 0
    with open(trace) as f:
        for line in f:
            obj, size = line.split()
            request = libcachesim.Request(obj_size=int(size), obj_id=int(obj))
            requests += 1
            if edge.get(request):
                continue
            edge_misses += 1
            if shield is not None and not shield.get(request):
                shield_misses += 1
    out = {"requests": requests, "edgeMisses": edge_misses}
    if shield is not None:
        out["shieldMisses"] = shield_misses
    print(json.dumps(out))


if __name__ == "__main__":
    main()
