"""RFC 9162's Merkle tree algorithms written afresh from the RFC's text (sections 2.1.1 to
2.1.4), to check the log's proofs independently. Reads our leaves, roots and proofs as JSON
on stdin; prints "ok" or exits non-zero naming the first disagreement."""
import hashlib
import json
import sys
from functools import lru_cache


def h(b):
    return hashlib.sha256(b).digest()


def largest_power_of_two_below(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


data = json.load(sys.stdin)
leaves = [bytes.fromhex(x) for x in data["leaves"]]


@lru_cache(maxsize=None)
def mth(lo, hi):
    n = hi - lo
    if n == 0:
        return h(b"")
    if n == 1:
        return h(b"\x00" + leaves[lo])
    k = largest_power_of_two_below(n)
    return h(b"\x01" + mth(lo, lo + k) + mth(lo + k, hi))


def path(m, lo, hi):
    n = hi - lo
    if n == 1:
        return []
    k = largest_power_of_two_below(n)
    if m < k:
        return path(m, lo, lo + k) + [mth(lo + k, hi)]
    return path(m - k, lo + k, hi) + [mth(lo, lo + k)]


def subproof(m, lo, hi, b):
    n = hi - lo
    if m == n:
        return [] if b else [mth(lo, hi)]
    k = largest_power_of_two_below(n)
    if m <= k:
        return subproof(m, lo, lo + k, b) + [mth(lo + k, hi)]
    return subproof(m - k, lo + k, hi, False) + [mth(lo, lo + k)]


def verify_inclusion(leaf_index, tree_size, leaf_hash, proof, root):
    if leaf_index >= tree_size:
        return False
    fn, sn, r = leaf_index, tree_size - 1, leaf_hash
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = h(b"\x01" + p + r)
            if not fn & 1:
                while not (fn & 1) and fn != 0:
                    fn >>= 1
                    sn >>= 1
        else:
            r = h(b"\x01" + r + p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(first, second, proof, first_hash, second_hash):
    if not proof:
        return False
    if first & (first - 1) == 0:
        proof = [first_hash] + proof
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = proof[0]
    for c in proof[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = h(b"\x01" + c + fr)
            sr = h(b"\x01" + c + sr)
            while not (fn & 1) and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = h(b"\x01" + sr + c)
        fn >>= 1
        sn >>= 1
    return fr == first_hash and sr == second_hash and sn == 0


def fail(what):
    print(what)
    sys.exit(1)


roots = [bytes.fromhex(r) for r in data["roots"]]
for size, root in enumerate(roots):
    if root != mth(0, size):
        fail(f"root of size {size}")
for size, proofs in enumerate(data["inclusion"], start=1):
    for index, proof in enumerate(proofs):
        proof = [bytes.fromhex(p) for p in proof]
        if proof != path(index, 0, size):
            fail(f"inclusion proof of {index} in {size}")
        if not verify_inclusion(index, size, h(b"\x00" + leaves[index]), proof, roots[size]):
            fail(f"inclusion proof of {index} in {size} does not verify")
checked = 0
for item in data["consistency"]:
    first, second = item["first"], item["second"]
    proof = [bytes.fromhex(p) for p in item["proof"]]
    if proof != subproof(first, 0, second, True):
        fail(f"consistency proof {first} -> {second}")
    if not verify_consistency(first, second, proof, roots[first], roots[second]):
        fail(f"consistency proof {first} -> {second} does not verify")
    checked += 1
print(f"ok {len(roots)} roots, {sum(len(p) for p in data['inclusion'])} inclusion proofs, {checked} consistency proofs")
