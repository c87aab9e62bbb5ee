"""The ``az`` policy-value network in NumPy: forward, backward, Adam, the
eight board symmetries and the file the ``az`` player reads.

The network (``crates/players/src/az/net.rs`` runs the same in Rust)::

    x  = 256 plane bits of the observation, [the 128 reach bits,]
         then the scores / 32                                    (258 or 386)
    h1 = relu(x · W1 + b1)          h2 = relu(h1 · W2 + b2)
    value  = tanh(h2 · wv + bv)                     for the side to move
    logit(from * 64 + to) = f[from] + t[to] + Σ_k U[from, k] · V[to, k]
    with f = h2 · Wf + bf, t = h2 · Wt + bt (64 each) and
         U = h2 · Wu + bu, V = h2 · Wv + bv2 (64 × K each)

The policy is a from-square term, a to-square term and a rank-K
interaction, so that what is learnt about a square serves every move that
uses it: far fewer weights than a dense 4,096-way head (with
``examples/alphazero.py``'s defaults, h2 of 128 and K = 8, 2 × 64 × 128 +
2 × 512 × 128 = 147,456 weights against 128 × 4,096 = 524,288, each with
its Adam moments). Training reads logits at the legal moves only
(``legal_actions``, -1 padded, with the search's visit distribution as the
target), never the whole 4,096.

>>> net = Network.init(hidden1=64, hidden2=64, rank=4, seed=0)
>>> net.save("az.bin")                # then: yolah match az:net=az.bin,sims=200 …
"""

from __future__ import annotations

import numpy as np

#: Inputs: 4 planes of 64 squares, and the two scores.
INPUTS = 4 * 64 + 2
#: Inputs with the two reach planes of ``yolah.vector`` (``reach=True``)
#: between the planes and the scores.
INPUTS_WITH_REACH = 6 * 64 + 2
#: The order of the arrays in the file (and in ``Network.params``).
NAMES = ["W1", "b1", "W2", "b2", "wv", "bv", "Wf", "bf", "Wt", "bt", "Wu", "bu", "Wv", "bv2"]
#: A training-only head, not in the file: the final margin (the side to
#: move's points minus the opponent's, / MARGIN_SCALE) from ``h2``. An auxiliary
#: target: the margin says more about a game than its sign, and teaches the
#: trunk what the value head needs.
AUX = ["wm", "bm"]
#: Margins of random games have a standard deviation of about 5 points
#: (5.17 over 5,000 games of uniformly random moves, ``random.seed(1)``).
#: Dividing by 4 keeps most targets within ±2.
MARGIN_SCALE = 4.0
MAGIC = b"YOLAHAZ1"


def features(observations, reach=False):
    """The network's input ``(B, 258)`` float32 of a dict of
    ``observation`` (uint8 ``(B, 4, 8, 8)``) and ``scores`` (``(B, 2)``);
    ``(B, 386)`` with ``reach`` (uint8 ``(B, 2, 8, 8)``)."""
    planes = np.asarray(observations["observation"]).reshape(-1, 256)
    scores = np.asarray(observations["scores"], dtype=np.float32) / 32.0
    parts = [planes.astype(np.float32)]
    if reach:
        parts.append(np.asarray(observations["reach"]).reshape(-1, 128).astype(np.float32))
    return np.concatenate(parts + [scores], axis=1)


def shapes(hidden1, hidden2, rank, inputs=INPUTS):
    """Each array's shape, in file order."""
    return {
        "W1": (inputs, hidden1),
        "b1": (hidden1,),
        "W2": (hidden1, hidden2),
        "b2": (hidden2,),
        "wv": (hidden2, 1),
        "bv": (1,),
        "Wf": (hidden2, 64),
        "bf": (64,),
        "Wt": (hidden2, 64),
        "bt": (64,),
        "Wu": (hidden2, 64 * rank),
        "bu": (64 * rank,),
        "Wv": (hidden2, 64 * rank),
        "bv2": (64 * rank,),
    }


class Network:
    """The weights (``params``, float32 arrays by name) and their use."""

    def __init__(self, params):
        names = NAMES + [k for k in AUX if k in params]
        self.params = {k: np.ascontiguousarray(params[k], dtype=np.float32) for k in names}
        self.hidden1 = self.params["W1"].shape[1]
        self.hidden2 = self.params["W2"].shape[1]
        self.rank = self.params["Wu"].shape[1] // 64
        self.inputs = self.params["W1"].shape[0]
        if self.inputs not in (INPUTS, INPUTS_WITH_REACH):
            raise ValueError(f"{self.inputs} inputs: {INPUTS} or {INPUTS_WITH_REACH}")
        self.reach = self.inputs == INPUTS_WITH_REACH
        expected = shapes(self.hidden1, self.hidden2, self.rank, self.inputs)
        for k in NAMES:
            if self.params[k].shape != expected[k]:
                raise ValueError(f"{k} has shape {self.params[k].shape}, expected {expected[k]}")

    @classmethod
    def init(cls, hidden1=128, hidden2=128, rank=8, seed=0, margin_head=False, reach=False):
        """He-initialised weights, zero biases; the policy and value heads
        start small (uniform priors, values near 0). ``margin_head`` adds
        the training-only margin head; ``reach`` reads the reach planes."""
        rng = np.random.default_rng(seed)
        params = {}
        all_shapes = dict(shapes(hidden1, hidden2, rank, INPUTS_WITH_REACH if reach else INPUTS))
        if margin_head:
            all_shapes.update({"wm": (hidden2, 1), "bm": (1,)})
        for k, shape in all_shapes.items():
            if len(shape) == 1:
                params[k] = np.zeros(shape, np.float32)
            else:
                scale = np.sqrt(2.0 / shape[0]) * (0.1 if k in ("wv", "wm", "Wf", "Wt", "Wu", "Wv") else 1.0)
                params[k] = (rng.standard_normal(shape) * scale).astype(np.float32)
        return cls(params)

    # -- forward --------------------------------------------------------

    def trunk(self, x):
        p = self.params
        z1 = x @ p["W1"] + p["b1"]
        h1 = np.maximum(z1, 0)
        z2 = h1 @ p["W2"] + p["b2"]
        h2 = np.maximum(z2, 0)
        return h1, h2

    def heads(self, h2):
        p, k = self.params, self.rank
        value = np.tanh(h2 @ p["wv"] + p["bv"])[:, 0]
        f = h2 @ p["Wf"] + p["bf"]
        t = h2 @ p["Wt"] + p["bt"]
        u = (h2 @ p["Wu"] + p["bu"]).reshape(-1, 64, k)
        v = (h2 @ p["Wv"] + p["bv2"]).reshape(-1, 64, k)
        return value, f, t, u, v

    def __call__(self, observations, masks=None):
        """``(logits (B, 4096), values (B,))``: the evaluator
        ``yolah.search`` calls."""
        _, h2 = self.trunk(features(observations, self.reach))
        value, f, t, u, v = self.heads(h2)
        logits = np.matmul(u, v.transpose(0, 2, 1))
        logits += f[:, :, None]
        logits += t[:, None, :]
        return logits.reshape(-1, 4096), value

    # -- training -------------------------------------------------------

    def loss_and_gradients(self, observations, legal, target, z, value_weight=1.0, margin=None, margin_weight=0.5):
        """The loss of a batch and its gradients: cross-entropy of the
        policy over the legal moves (``legal`` int (B, M), -1 padded;
        ``target`` (B, M) the visit distribution) plus ``value_weight``
        times the squared error of the value against the result ``z``
        (B,) for the side to move, plus, with the margin head and
        ``margin`` (B,) (the final points difference for the side to move),
        ``margin_weight`` times the squared error of the margin /
        ``MARGIN_SCALE``.
        Returns ``(losses, gradients)``, ``losses`` a dict of ``policy``,
        ``value``, ``margin`` and ``total``."""
        p, k = self.params, self.rank
        x = features(observations, self.reach)
        batch = len(x)
        h1, h2 = self.trunk(x)
        value, f, t, u, v = self.heads(h2)
        valid = legal >= 0
        actions = np.where(valid, legal, 0).astype(np.int64)
        frm, to = actions // 64, actions % 64
        rows = np.arange(batch)[:, None]
        uf = u[rows, frm]  # (B, M, K)
        vt = v[rows, to]
        logits = f[rows, frm] + t[rows, to] + np.einsum("bmk,bmk->bm", uf, vt)
        logits = np.where(valid, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        probs = np.where(valid, np.exp(logp), 0)
        target = np.where(valid, target, 0)
        logp = np.where(valid, logp, 0)
        policy_loss = -(target * logp).sum() / batch
        value_loss = np.mean((value - z) ** 2)
        # Backward: the logits, then the four head outputs.
        dlogits = ((probs - target) / batch).astype(np.float32)
        flat_from = (np.arange(batch)[:, None] * 64 + frm).ravel()
        flat_to = (np.arange(batch)[:, None] * 64 + to).ravel()
        size = batch * 64
        df = np.bincount(flat_from, dlogits.ravel(), size).reshape(batch, 64)
        dt = np.bincount(flat_to, dlogits.ravel(), size).reshape(batch, 64)
        du = np.empty((batch, 64, k), np.float32)
        dv = np.empty((batch, 64, k), np.float32)
        for j in range(k):
            du[:, :, j] = np.bincount(flat_from, (dlogits * vt[:, :, j]).ravel(), size).reshape(batch, 64)
            dv[:, :, j] = np.bincount(flat_to, (dlogits * uf[:, :, j]).ravel(), size).reshape(batch, 64)
        dvalue = (2 * value_weight / batch) * (value - z) * (1 - value**2)
        g = {}
        dvalue = dvalue[:, None].astype(np.float32)
        df, dt = df.astype(np.float32), dt.astype(np.float32)
        du, dv = du.reshape(batch, -1), dv.reshape(batch, -1)
        g["wv"], g["bv"] = h2.T @ dvalue, dvalue.sum(0)
        g["Wf"], g["bf"] = h2.T @ df, df.sum(0)
        g["Wt"], g["bt"] = h2.T @ dt, dt.sum(0)
        g["Wu"], g["bu"] = h2.T @ du, du.sum(0)
        g["Wv"], g["bv2"] = h2.T @ dv, dv.sum(0)
        dh2 = dvalue @ p["wv"].T + df @ p["Wf"].T + dt @ p["Wt"].T + du @ p["Wu"].T + dv @ p["Wv"].T
        margin_loss = 0.0
        if "wm" in p and margin is not None:
            predicted = (h2 @ p["wm"] + p["bm"])[:, 0]
            error = predicted - np.asarray(margin, np.float32) / MARGIN_SCALE
            margin_loss = float(np.mean(error**2))
            dm = ((2 * margin_weight / batch) * error)[:, None].astype(np.float32)
            g["wm"], g["bm"] = h2.T @ dm, dm.sum(0)
            dh2 = dh2 + dm @ p["wm"].T
        elif "wm" in p:
            g["wm"], g["bm"] = np.zeros_like(p["wm"]), np.zeros_like(p["bm"])
        dz2 = dh2 * (h2 > 0)
        g["W2"], g["b2"] = h1.T @ dz2, dz2.sum(0)
        dz1 = (dz2 @ p["W2"].T) * (h1 > 0)
        g["W1"], g["b1"] = x.T @ dz1, dz1.sum(0)
        total = policy_loss + value_weight * value_loss + margin_weight * margin_loss
        losses = {"policy": float(policy_loss), "value": float(value_loss), "margin": margin_loss, "total": float(total)}
        return losses, {name: g[name].astype(np.float32) for name in self.params}

    # -- the file -------------------------------------------------------

    def to_bytes(self):
        header = MAGIC + np.array([self.inputs, self.hidden1, self.hidden2, self.rank], "<u4").tobytes()
        return header + b"".join(self.params[k].astype("<f4").tobytes() for k in NAMES)

    def save(self, path):
        """Writes the file the ``az`` player reads (``az:net=PATH``)."""
        with open(path, "wb") as f:
            f.write(self.to_bytes())

    @classmethod
    def from_bytes(cls, data):
        if data[:8] != MAGIC:
            raise ValueError("not an az network (it must start with YOLAHAZ1)")
        inputs, hidden1, hidden2, rank = np.frombuffer(data[8:24], "<u4")
        if inputs not in (INPUTS, INPUTS_WITH_REACH):
            raise ValueError(f"{inputs} inputs, expected {INPUTS} or {INPUTS_WITH_REACH}")
        params, at = {}, 24
        for k, shape in shapes(int(hidden1), int(hidden2), int(rank), int(inputs)).items():
            n = int(np.prod(shape))
            params[k] = np.frombuffer(data, "<f4", n, at).reshape(shape).copy()
            at += 4 * n
        if at != len(data):
            raise ValueError(f"the file has {len(data)} bytes, its dimensions need {at}")
        return cls(params)

    @classmethod
    def load(cls, path):
        with open(path, "rb") as f:
            return cls.from_bytes(f.read())


class Adam:
    """Adam with decoupled weight decay (AdamW) over a network's params."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-4):
        self.lr, self.betas, self.eps, self.weight_decay = lr, betas, eps, weight_decay
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        b1, b2 = self.betas
        c1, c2 = 1 - b1**self.t, 1 - b2**self.t
        for k, g in grads.items():
            m, v = self.m[k], self.v[k]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            update = (m / c1) / (np.sqrt(v / c2) + self.eps)
            if params[k].ndim > 1:
                update += self.weight_decay * params[k]
            params[k] -= self.lr * update

    def state(self):
        return {"t": self.t, "m": self.m, "v": self.v}

    def load_state(self, state):
        self.t, self.m, self.v = state["t"], state["m"], state["v"]


def symmetries():
    """The eight symmetries of the board as ``(8, 64)`` int arrays: row
    ``s`` maps each square to its image (squares a1 = 0 … h8 = 63, the
    planes ``[rank, file]``). A queen's moves map to a queen's moves, so
    positions, legal moves and results map together."""
    grid = np.arange(64).reshape(8, 8)
    images = []
    for flip in (False, True):
        g = grid.T if flip else grid
        for turns in range(4):
            images.append(np.rot90(g, turns))
    maps = np.empty((8, 64), np.int64)
    for s, image in enumerate(images):
        # image[r, f] is the square whose content lands on (r, f).
        maps[s, image.ravel()] = np.arange(64)
    return maps


SYMMETRIES = symmetries()


def transform(planes, legal, s):
    """Planes ``(B, P, 8, 8)`` and legal actions ``(B, M)`` (-1 padded) of
    boards under symmetries ``s`` (one index a board)."""
    maps = SYMMETRIES[s]  # (B, 64)
    n, p = planes.shape[:2]
    flat = planes.reshape(n, p, 64)
    out = np.empty_like(flat)
    rows = np.arange(n)[:, None, None]
    out[rows, np.arange(p)[None, :, None], maps[:, None, :]] = flat
    valid = legal >= 0
    a = np.where(valid, legal, 0).astype(np.int64)
    images = np.take_along_axis(maps, a // 64, 1) * 64 + np.take_along_axis(maps, a % 64, 1)
    return out.reshape(planes.shape), np.where(valid, images, -1).astype(legal.dtype)
