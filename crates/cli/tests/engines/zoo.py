#!/usr/bin/env python3
"""Broken engines for the adjudication tests: the example engine, broken in
one way chosen by the first argument.

    crash N      says so on stderr and exits at its N-th move
    sleep        never answers go in time (sleeps 30 s)
    garbage      answers go with a line that is not a move
    illegal      answers go with d5:d5
    silent       never answers the handshake
    flood        answers go with endless info lines
    fail         says why on stderr and exits 2 before its handshake
    slowstart    takes 3 s before its handshake (loading a network, say)
    gate PATH    answers each go once the file PATH exists
    closeout     closes its output at go and goes on reading its input
    crashpid     says its process id on stderr and exits at its first move
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "examples", "engines"))
import random_engine as engine  # noqa: E402

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else "1"
if mode == "fail":
    print("zoo: loading the network: cannot open nets/missing.bin", file=sys.stderr)
    print("zoo: giving up", file=sys.stderr)
    sys.exit(2)
if mode == "slowstart":
    time.sleep(3)
board, side = engine.parse_position(engine.START)[:2]
moves_made = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "yolah":
        if mode == "silent":
            continue
        print("id name broken " + mode)
        print("yolahok")
    elif words[0] == "isready":
        print("readyok")
    elif words[0] == "position":
        text = engine.START if words[1] == "startpos" else " ".join(words[2:7])
        board, side = engine.parse_position(text)[:2]
    elif words[0] == "go":
        moves_made += 1
        if mode == "crashpid":
            print(f"zoo: process {os.getpid()} gives up", file=sys.stderr, flush=True)
            sys.exit(4)
        if mode == "crash" and moves_made >= int(arg):
            print(f"zoo: crashing at move {moves_made}", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode == "sleep":
            time.sleep(30)
        if mode == "closeout":
            sys.stdout.close()
            os.close(1)
            for _ in sys.stdin:
                pass
            sys.exit(0)
        while mode == "gate" and not os.path.exists(arg):
            time.sleep(0.01)
        if mode == "garbage":
            print("bestmove \x00\x01 nonsense")
        elif mode == "illegal":
            print("bestmove d5:d5")
        elif mode == "flood":
            while True:
                print("info depth 1 score cp 0 nodes 1 pv a1:a1")
        else:
            print("bestmove " + engine.moves(board, side)[0])
    elif words[0] == "quit":
        break
    sys.stdout.flush()
