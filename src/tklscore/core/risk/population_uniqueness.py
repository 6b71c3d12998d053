"""Population uniqueness from a sample (ARX ``RiskModelPopulationUniqueness``).

The sample is the table (n rows, its class-size histogram); the population has
N = round(n / f) rows for a sampling fraction f. The estimated numbers of population
uniques, as ARX computes them:

- Zayatz (1991): the share of sample uniques that are population uniques,
  P = (c_1/u · h(1)) / Σ_j (c_j/u · h_j(1)) with h_j(1) the hypergeometric probability of
  drawing exactly one of a class of size j in the population, N, n; uniques = c_1 · P / f'.
- Pitman (Hoshino 2001): θ, α by maximum likelihood (Newton–Raphson from ARX's start
  values, with digamma/trigamma closed forms), uniques = Γ(θ+1)/Γ(θ+α) · N^α.
- SNB (Chen 1998): K by Shlosser's estimator of non-empty classes, α, β solving ARX's two
  equations in c_1, c_2 by Newton–Raphson; uniques = K · β^α.
- Dankar's decision rule: f ≤ 0.1 → Pitman (Zayatz if Pitman fails); otherwise the smaller
  of Zayatz and SNB (Zayatz if SNB fails).

A model that fails (no convergence, NaN, 0) is unavailable and counts 0, as in ARX;
without sample uniques every estimate is 0. Fractions are uniques / N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ACCURACY = 1e-9
ITERATIONS = 1000


@dataclass(frozen=True)
class PopulationUniques:
    """Estimated numbers of population uniques and the population size; ``dankar_model``
    names the model Dankar's rule chose."""

    population_size: int
    pitman: float
    zayatz: float
    snb: float
    dankar: float
    dankar_model: str

    def fractions(self) -> dict[str, float]:
        N = float(self.population_size)
        return {"pitman": self.pitman / N, "zayatz": self.zayatz / N, "snb": self.snb / N,
                "dankar": self.dankar / N}


def histogram(class_sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct class sizes (ascending) and how many classes have each."""
    sizes, counts = np.unique(class_sizes, return_counts=True)
    return sizes.astype(np.float64), counts.astype(np.float64)


def population_uniques(class_sizes: np.ndarray, sampling_fraction: float) -> PopulationUniques:
    sizes, counts = histogram(class_sizes)
    n = float((sizes * counts).sum())
    N = int(round(n / sampling_fraction))
    c1 = float(counts[sizes == 1].sum())
    if c1 == 0:
        return PopulationUniques(N, 0.0, 0.0, 0.0, 0.0, "dankar")
    f = n / N
    zayatz = _valid(_zayatz(sizes, counts, n, N, c1, f))
    pitman = _valid(_pitman(sizes, counts, n, N, c1))
    snb = _valid(_snb(sizes, counts, c1, f))
    if f <= 0.1:
        dankar, model = (pitman, "pitman") if pitman else (zayatz, "zayatz")
    elif snb:
        dankar, model = (zayatz, "zayatz") if zayatz < snb else (snb, "snb")
    else:
        dankar, model = zayatz, "zayatz"
    return PopulationUniques(N, pitman, zayatz, snb, dankar, model)


def _valid(value: float) -> float:
    return 0.0 if (value is None or not math.isfinite(value) or value == 0.0) else float(value)


# ------------------------------------------------------------------------------- Zayatz

def _log_choose(a: np.ndarray | float, b: np.ndarray | float):
    return (_lgamma(np.asarray(a, dtype=np.float64) + 1) - _lgamma(np.asarray(b, dtype=np.float64) + 1)
            - _lgamma(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64) + 1))


_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def hypergeometric_one(N: float, K: np.ndarray, n: float) -> np.ndarray:
    """P(X = 1) for X ~ Hypergeometric(population N, K successes, n draws)."""
    K = np.asarray(K, dtype=np.float64)
    out = np.zeros_like(K)
    ok = (K >= 1) & (N - K >= n - 1)
    out[ok] = np.exp(np.log(K[ok]) + _log_choose(N - K[ok], n - 1) - _log_choose(N, n))
    return out


def _zayatz(sizes, counts, n, N, c1, f) -> float:
    u = counts.sum()
    temp = float((counts / u * hypergeometric_one(N, sizes, n)).sum())
    if temp == 0:
        return math.nan
    conditional = (c1 / u * float(hypergeometric_one(N, np.array([1.0]), n)[0])) / temp
    return c1 * conditional / f


# ------------------------------------------------------------------------------- Pitman

def digamma(x):
    """ψ(x) for x > 0 (recurrence up to x ≥ 10, then the asymptotic series)."""
    x = np.asarray(x, dtype=np.float64).copy()
    x[~np.isfinite(x) | (x < -1e4)] = np.nan  # far from the solution: the recurrence would take |x| steps (forever at -1e300)
    result = np.zeros_like(x)
    small = x < 10
    while small.any():
        result[small] -= 1.0 / x[small]
        x[small] += 1.0
        small = x < 10
    inv = 1.0 / x
    inv2 = inv * inv
    result += (np.log(x) - 0.5 * inv
               - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 * (1 / 132 - inv2 * 691 / 32760))))))
    return result


def trigamma(x):
    """ψ'(x) for x > 0."""
    x = np.asarray(x, dtype=np.float64).copy()
    x[~np.isfinite(x) | (x < -1e4)] = np.nan  # far from the solution: the recurrence would take |x| steps (forever at -1e300)
    result = np.zeros_like(x)
    small = x < 10
    while small.any():
        result[small] += 1.0 / (x[small] * x[small])
        x[small] += 1.0
        small = x < 10
    inv = 1.0 / x
    inv2 = inv * inv
    result += inv + 0.5 * inv2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 * (1 / 30 - inv2 * 5 / 66))))
    return result


def _newton(function, start, accuracy=ACCURACY, iterations=ITERATIONS):
    """2-D Newton–Raphson: ``function(x) -> (F(x), J(x))``; None when it does not converge."""
    x = np.array(start, dtype=np.float64)
    with np.errstate(all="ignore"):
        for _ in range(iterations):
            value, jacobian = function(x)
            if not (np.all(np.isfinite(value)) and np.all(np.isfinite(jacobian))):
                return None
            if abs(value[0]) <= accuracy and abs(value[1]) <= accuracy:
                return x
            try:
                step = np.linalg.solve(jacobian, value)
            except np.linalg.LinAlgError:
                return None
            x = x - step
            if not np.all(np.isfinite(x)):
                return None
    return None


def _pitman(sizes, counts, n, N, c1) -> float:
    c2 = float(counts[sizes == 2].sum()) or 1.0
    u = float(counts.sum())
    c = c1 * (c1 - 1) / c2
    t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / (2 * c1 * u + c1 * c - n * c)
    a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    big = sizes != 1
    keys, values = sizes[big], counts[big]

    def function(x):
        t, a = x
        if a == 0:
            return np.array([np.nan, np.nan]), np.eye(2)
        v0 = u - 1.0
        v1 = digamma(v0 + t / a + 1.0)
        v2 = trigamma((a + t + a * v0) / a)
        v3 = trigamma(t / a + 1.0)
        v4 = digamma(t / a + 1.0)
        a2 = a * a
        d1 = (v3 - v2) / a2
        d5 = (a * v1 + t * v2 - a * v4 - t * v3) / (a2 * a)
        d3 = (a2 * v0 - t * t * v2 + t * t * v3 - 2 * a * t * v1 + 2 * a * t * v4) / (a2 * a2)
        o1 = (v1 - v4) / a
        o3 = (-t * v1 + a * v0 + t * v4) / a2
        o2 = digamma(n + t) - digamma(t + 1.0)
        d2 = trigamma(t + 1.0) - trigamma(n + t)
        d4 = float((values * (trigamma(1.0 - a) - trigamma(keys - a))).sum())
        o4 = float((values * (digamma(keys - a) - digamma(1.0 - a))).sum())
        value = np.array([float(o1 - o2), float(o3 - o4)])
        jacobian = np.array([[float(d2 - d1), float(-d5)], [float(-d5), float(-d3 - d4)]])
        return value, jacobian

    solution = _newton(function, (t0, a0))
    if solution is None:
        return math.nan
    t, a = solution
    if a == 0:
        return math.nan
    try:
        value = math.exp(math.lgamma(t + 1.0) - math.lgamma(t + a) + a * math.log(N))
    except (ValueError, OverflowError):
        return math.nan
    return value if 0.0 <= value <= N else math.nan


# ---------------------------------------------------------------------------------- SNB

def _snb_starts(tries: int = 60) -> list[tuple[float, float]]:
    """ARX's solver starts at (1, 1), then at random points of (−1, 1)²; seeded here so
    that the estimate is reproducible."""
    rng = np.random.default_rng(0)
    return [(1.0, 1.0)] + [tuple(rng.uniform(-1.0, 1.0, 2)) for _ in range(tries)]


def _snb(sizes, counts, c1, f) -> float:
    c2 = float(counts[sizes == 2].sum())
    u = float(counts.sum())
    f2 = f * f
    v1 = float((sizes * f2 * (1 - f2) ** (sizes - 1) * counts).sum())
    # Shlosser's estimator as ARX writes it (the "- 1" inside the sum included)
    v2 = float(((1 - f) ** sizes * counts * (1 + f) ** sizes - 1).sum())
    v3 = float(((1 - f) ** sizes * counts).sum())
    v4 = float((sizes * f * (1 - f) ** (sizes - 1) * counts).sum())
    if v2 == 0 or v4 == 0:
        return math.nan
    k = u + c1 * (v1 / v2) * (v3 / v4) * (v3 / v4)

    def function(x):
        a, b = np.float64(x[0]), np.float64(x[1])  # numpy scalars: NaN (not complex, not raise) off the domain
        log = np.log
        d = (1 - f) * (1 - b)
        g1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1
        g2 = k * a * b ** a * f2 * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2
        # derivatives as ARX's closed forms (obtained with Matlab)
        val0 = (b - 1) * (f - 1)
        val1 = val0 - 1
        val2 = 1 - val0
        val3 = a * val0 / val1 - 1
        val4 = (-b / val1) ** a
        val7 = b ** a
        val8 = val7 * f2 * k
        val9 = a * val8
        val10 = 2 * val2 ** (a + 2)
        val11 = val1 ** 2
        val13 = f * k
        val14 = f - 1
        val15 = a - 1
        val16 = b - 1
        val17 = val15 * val0
        val18 = f2 * k
        val19 = val17 + 2
        val20 = val18 * val19
        x1 = -val13 * log(-b / val1) * val3 * val4 - (val13 * val4 * val0) / val1
        x2 = (a * val13 * (1 / val1 - (b * val14) / val11) * val3 * (-b / val1) ** val15
              - val13 * val4 * ((a * val14) / val1 - (a * val16 * val14 ** 2) / val11))
        y1 = ((val9 * log(val2) * val19 * val16) / val10 - (val9 * val16 ** 2 * val14) / val10
              - (val7 * val20 * val16) / val10 - (a * val7 * val18 * log(b) * val19 * val16) / val10)
        y2 = (-(val9 * val19) / val10 - (a ** 2 * b ** val15 * val20 * val16) / val10
              - (a * val7 * val18 * val17) / val10
              - (a * val7 * val20 * (a + 2) * val0) / (2 * val2 ** (a + 3)))
        return np.array([g1, g2]), np.array([[x1, x2], [y1, y2]])

    for start in _snb_starts():
        solution = _newton(function, start, iterations=200)
        if solution is not None:
            a, b = solution
            value = k * b ** a
            if math.isfinite(value):
                return value
    return math.nan
