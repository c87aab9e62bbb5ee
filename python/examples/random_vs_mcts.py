"""Random moves against MCTS in the PettingZoo environment: trains nothing,
shows the loop an agent lives in.

    python python/examples/random_vs_mcts.py [GAMES]
"""


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


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Random moves against MCTS in the PettingZoo environment.")
    parser.add_argument("games", nargs="?", type=int, default=4, help="games to play (4)")
    games = parser.parse_args().games
    if games < 1:
        parser.error(f"games {games}: at least 1")
    main(games)
