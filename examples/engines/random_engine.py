#!/usr/bin/env python3
"""A complete Yolah engine in standard-library Python: it speaks the yolah
engine protocol (docs/engine-protocol.md) and plays uniformly random legal
moves. Start from here to write your own player.

    yolah match engine:cmd="python3 examples/engines/random_engine.py" random --games 10

Squares are a1..h8; the board is a dict from square to 'b', 'w' or 'x' (a
hole). A move slides a piece like a chess queen over empty squares; the
square it left becomes a hole; the pass is a1:a1.
"""
import random
import sys

FILES = "abcdefgh"
DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]
START = "w6b/8/8/3bw3/3wb3/8/8/b6w b 0 0 0"


def square(f, r):
    return FILES[f] + str(r + 1)


def parse_position(text):
    """The board, the side to move and the scores of a position text."""
    board_text, side, black, white, ply = text.split()
    board = {}
    for i, row in enumerate(board_text.split("/")):
        rank, f = 7 - i, 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                board[square(f, rank)] = c
                f += 1
    return board, side, int(black), int(white), int(ply)


def moves(board, side):
    """Every legal move of `side` ('b' or 'w'); the pass alone if none."""
    found = []
    for sq, piece in board.items():
        if piece != side:
            continue
        f, r = FILES.index(sq[0]), int(sq[1]) - 1
        for df, dr in DIRECTIONS:
            tf, tr = f + df, r + dr
            while 0 <= tf < 8 and 0 <= tr < 8 and square(tf, tr) not in board:
                found.append(sq + ":" + square(tf, tr))
                tf, tr = tf + df, tr + dr
    return found or ["a1:a1"]


def play(board, side, move):
    """Plays `move` for `side`; returns the other side."""
    frm, to = move.split(":")
    if frm != to:
        if move not in moves(board, side):
            raise ValueError(f"illegal move {move}")
        board[to] = side
        board[frm] = "x"
    elif moves(board, side) != ["a1:a1"]:
        raise ValueError(f"{side} may not pass while it has moves")
    return "w" if side == "b" else "b"


def main():
    rng = random.Random(2026)
    board, side = parse_position(START)[:2]
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, rest = words[0], words[1:]
        if command == "yolah":
            out.write("id name python random\nid author the yolah developers\nyolahok\n")
        elif command == "isready":
            out.write("readyok\n")
        elif command in ("newgame", "stop"):
            pass  # nothing to forget; a search here is instant
        elif command == "setoption":
            out.write("error setoption: this engine has no options\n")
        elif command == "position":
            try:
                if rest[:1] == ["startpos"]:
                    text, rest = START, rest[1:]
                elif rest[:1] == ["text"] and len(rest) >= 6:
                    text, rest = " ".join(rest[1:6]), rest[6:]
                else:
                    raise ValueError("expected startpos or text")
                new_board, new_side = parse_position(text)[:2]
                for move in rest[1:] if rest[:1] == ["moves"] else []:
                    new_side = play(new_board, new_side, move)
                board, side = new_board, new_side
            except (ValueError, IndexError) as e:
                out.write(f"error position: {e}\n")
        elif command == "go":
            legal = moves(board, side)
            out.write(f"info string {len(legal)} moves\nbestmove {rng.choice(legal)}\n")
        elif command == "quit":
            return
        else:
            out.write(f"error unknown command {command!r}\n")
        out.flush()


if __name__ == "__main__":
    main()
