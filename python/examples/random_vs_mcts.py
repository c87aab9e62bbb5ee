"""Random moves against MCTS in the PettingZoo environment: trains nothing,
shows the loop an agent lives in.

    python python/examples/random_vs_mcts.py [GAMES]
"""

import sys

import numpy as np

import yolah


def main(games: int = 4) -> None:
    rng = np.random.default_rng(1)
    mcts = yolah.Player("mcts:iterations=2000,seed=1")
    env = yolah.env()
    wins = {"random": 0, "mcts": 0, "draw": 0}
    for game in range(games):
        env.reset()
        # Alternate colours: the random agent is Black in even games.
        random_side = "black" if game % 2 == 0 else "white"
        mcts.new_game()
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if agent == random_side:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            else:
                action = mcts.choose_move(env.unwrapped.position).action
            env.step(action)
        final = env.unwrapped.position
        winner = final.winner
        who = "draw" if winner == "draw" else ("random" if winner == random_side else "mcts")
        wins[who] += 1
        print(f"game {game + 1}: random plays {random_side}, "
              f"{final.black_score}-{final.white_score}, winner: {who}")
    print(wins)


def games_argument(args):
    """GAMES from the command line, or a usage line and exit code 2."""
    if not args:
        return 4
    if len(args) == 1 and args[0].isdigit() and int(args[0]) > 0:
        return int(args[0])
    if args[0] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0)
    sys.exit(f"{__doc__.strip()}\n\nGAMES is a number of games, at least 1, not {' '.join(args)!r}")


if __name__ == "__main__":
    main(games_argument(sys.argv[1:]))
