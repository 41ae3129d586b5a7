#!/usr/bin/env python3
"""Recompute a Croupier shoe from its revealed seed, with nothing but Python's standard library.

Usage: verify-shuffle.py SEED_HEX SHOE_ID DECKS [COMMITMENT_HEX]

Prints the card order (rank A23456789TJQK + suit CDHS) and checks the commitment published in
ShoeShuffled when one is given. The algorithm is documented in docs/shuffle.md.
"""
import hashlib
import hmac
import json
import struct
import sys

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALGORITHM = "croupier/fisher-yates/hmac-sha256/v1"


def shuffle(seed: bytes, shoe_id: str, decks: int) -> list:
    params = json.dumps(
        {"algorithm": ALGORITHM, "decks": decks, "shoeId": shoe_id},
        separators=(",", ":"), ensure_ascii=False,
    ).encode("utf-8")
    words, block = [], 0

    def next_word() -> int:
        nonlocal words, block
        if not words:
            digest = hmac.new(seed, params + struct.pack(">Q", block), hashlib.sha256).digest()
            block += 1
            words = list(struct.unpack(">8I", digest))
        return words.pop(0)

    def below(bound: int) -> int:
        threshold = (2**32 - bound) % bound  # reject the lowest 2^32 mod bound values
        while True:
            draw = next_word()
            if draw >= threshold:
                return draw % bound

    shoe = [rank * 4 + suit for _ in range(decks) for suit in range(4) for rank in range(13)]
    for i in range(len(shoe) - 1, 0, -1):
        j = below(i + 1)
        shoe[i], shoe[j] = shoe[j], shoe[i]
    return [RANKS[card >> 2] + SUITS[card & 3] for card in shoe], params


def main() -> int:
    if len(sys.argv) not in (4, 5):
        print(__doc__)
        return 2
    seed = bytes.fromhex(sys.argv[1])
    order, params = shuffle(seed, sys.argv[2], int(sys.argv[3]))
    print(" ".join(order))
    if len(sys.argv) == 5:
        commitment = hashlib.sha256(seed + params).hexdigest()
        ok = commitment == sys.argv[4].lower()
        print(f"commitment {'matches' if ok else 'DOES NOT MATCH'}: {commitment}")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
