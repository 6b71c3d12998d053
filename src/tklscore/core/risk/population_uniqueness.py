"""Population uniqueness from a sample (ARX ``RiskModelPopulationUniqueness``), ported from
ARX's sources (``ModelZayatz``, ``ModelPitman``, ``ModelSNB``, the ``newtonraphson``
solver ARX uses, and ``ARXPopulationModel``).

The sample is the table (n rows, its class-size histogram c_j = #classes of size j, u
classes); for a sampling fraction f the population has N = (1/f)·n rows — a real
number, not rounded, as ARX has it. Estimated numbers of population uniques:

- Zayatz (1991): P = (c_1/u · h_1(1)) / Σ_j (c_j/u · h_j(1)), h_j(1) the hypergeometric
  probability of drawing exactly one of j successes in ⌊n⌋ draws from ⌊N⌋ (ARX casts
  both to int); uniques = c_1 · P / f.
- Pitman (Hoshino 2001): θ, α by maximum likelihood with the closed (digamma/trigamma)
  forms of the score equations, from ARX's start values, θ ≥ 0; when that fails, or its
  root does not solve the iterative (summed) equations to ARX's accuracy, the iterative
  forms are solved instead; uniques = max of Γ(θ+1)/Γ(θ+α) · N^α computed with log-Gamma
  and with Gamma (each kept if in [0, N]), as ARX does.
- SNB (Chen 1998): K by Shlosser's estimator as ARX writes it, α, β by Newton–Raphson
  from (1, 1); uniques = K · β^α.
- Dankar's decision rule: f ≤ 0.1 → Pitman (Zayatz if Pitman is unavailable); otherwise
  the smaller of Zayatz and SNB (Zayatz if SNB is unavailable; SNB if Zayatz is NaN, as
  ARX's comparison falls).

The solver is ARX's: accuracy 10⁻⁶ on both equations, up to 1,000 iterations per try and
10,000 in all; a try that leaves the domain (NaN, or θ < 0 for Pitman) restarts at a
random point in [0, start) — ARX draws it with ``Math.random()``, here with a fixed seed,
so that an estimate that needs restarts is reproducible (ARX's may vary from run to run).
ARX's time limits (100 ms a try, 1 s in all) are not copied. An estimate that is NaN or
0 is unavailable and counts 0, as in ARX; without sample uniques every estimate is 0.
Fractions are uniques / N.

Where ARX differs from the papers: N = n/f is not rounded to a whole population; Zayatz's
hypergeometric terms truncate N and n to integers; Shlosser's estimator subtracts 1 inside
its second sum (Σ ((1−f)^j c_j (1+f)^j − 1) rather than Σ (1−f)^j ((1+f)^j − 1) c_j); the
Pitman estimate takes the larger of two numerically different evaluations of the same
formula; Dankar's rule compares Zayatz with SNB only when SNB is available.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ACCURACY = 1e-6               # ARXSolverConfiguration's defaults
ITERATIONS_PER_TRY = 1000
ITERATIONS_TOTAL = 10000


@dataclass(frozen=True)
class PopulationUniques:
    """Estimated numbers of population uniques and the population size; ``dankar_model``
    names the model Dankar's rule chose."""

    population_size: float
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
    f = float(sampling_fraction)
    N = 1.0 / f * n
    c1 = float(counts[sizes == 1].sum())
    if c1 == 0:
        return PopulationUniques(N, 0.0, 0.0, 0.0, 0.0, "dankar")
    zayatz = _zayatz(sizes, counts, n, N, c1, f)
    pitman = _pitman(sizes, counts, n, N, c1)
    snb = _snb(sizes, counts, c1, f)
    if f <= 0.1:
        dankar, model = (pitman, "pitman") if _is_valid(pitman) else (zayatz, "zayatz")
    elif _is_valid(snb):
        dankar, model = (zayatz, "zayatz") if zayatz < snb else (snb, "snb")
    else:
        dankar, model = zayatz, "zayatz"
    return PopulationUniques(N, _valid(pitman), _valid(zayatz), _valid(snb), _valid(dankar), model)


def _is_valid(value: float) -> bool:
    return not math.isnan(value) and value != 0.0


def _valid(value: float) -> float:
    return float(value) if _is_valid(value) else 0.0


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
    population, sample = float(min(int(N), 2 ** 31 - 1)), float(min(int(n), 2 ** 31 - 1))  # ARX's int casts
    temp = float((counts / u * hypergeometric_one(population, sizes, sample)).sum())
    with np.errstate(all="ignore"):
        conditional = np.float64(c1 / u * float(hypergeometric_one(population, np.array([1.0]), sample)[0])) / temp
    return float(c1 * conditional / f)


# ------------------------------------------------------------------------------- Pitman

def _recur_to_ten(x: np.ndarray, result: np.ndarray, term) -> None:
    """``result += term(x); x += 1`` while x < 10, in place, element by element in the same
    order (the same float64 operations): vectorised while many elements step, then one
    element at a time, as a Newton step far below 0 leaves a few that take thousands."""
    small = x < 10
    while np.count_nonzero(small) > 4:
        result[small] += term(x[small])
        x[small] += 1.0
        small = x < 10
    flat_x, flat_result = x.reshape(-1), result.reshape(-1)   # views: a 0-d x as one element
    for i in np.flatnonzero(small):
        v, r = flat_x[i], flat_result[i]   # numpy scalars: 1/0 is inf, as in the array steps
        while v < 10:
            r += term(v)
            v += 1.0
        flat_x[i], flat_result[i] = v, r


def digamma(x):
    """ψ(x) for x > 0 (recurrence up to x ≥ 10, then the asymptotic series)."""
    x = np.asarray(x, dtype=np.float64).copy()
    x[~np.isfinite(x) | (x < -1e4)] = np.nan  # far from the solution: the recurrence would take |x| steps (forever at -1e300)
    result = np.zeros_like(x)
    _recur_to_ten(x, result, lambda v: -1.0 / v)
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
    _recur_to_ten(x, result, lambda v: 1.0 / (v * v))
    inv = 1.0 / x
    inv2 = inv * inv
    result += inv + 0.5 * inv2 + inv * inv2 * (1 / 6 - inv2 * (1 / 30 - inv2 * (1 / 42 - inv2 * (1 / 30 - inv2 * 5 / 66))))
    return result


def solve(function, start, constraint=None, seed: int = 0) -> np.ndarray | None:
    """ARX's 2-D Newton–Raphson (``NewtonRaphson2D``): ``function(x) -> (F(x), J(x))``,
    x ← x − J⁻¹F until |F_1|, |F_2| ≤ :data:`ACCURACY`; a try ends when x is NaN, breaks
    ``constraint`` or runs past :data:`ITERATIONS_PER_TRY`, and the next starts at a
    random point in [0, start) (seeded); None after :data:`ITERATIONS_TOTAL` iterations.
    J may be given as a function of no argument, called only when a step needs it. The step
    is taken in Python floats: the same IEEE double operations as NumPy's scalars (Java's
    doubles), a fraction of their cost (a solve that fails takes 10,000 steps)."""
    init = np.array(start, dtype=np.float64)
    restarts = _restarts(np.random.default_rng(seed), init)
    x, total = None, 0
    with np.errstate(all="ignore"):
        while total <= ITERATIONS_TOTAL:
            x = tuple(init.tolist()) if x is None else next(restarts)
            iterations = 0
            while True:
                total += 1
                value, jacobian = function(x)
                v0, v1 = float(value[0]), float(value[1])
                if abs(v0) <= ACCURACY and abs(v1) <= ACCURACY:
                    return np.array(x)
                if math.isnan(v0) or math.isnan(v1):
                    x = (math.nan, math.nan)   # a NaN in F is NaN in both coordinates of the step, whatever J is
                else:
                    (j11, j12), (j21, j22) = ((float(j[0]), float(j[1])) for j in (jacobian() if callable(jacobian) else jacobian))
                    det = j11 * j22 - j12 * j21
                    scalar = 1.0 / det if det != 0 else math.copysign(math.inf, det)  # Java's 1/±0: ±∞
                    x = (x[0] - (j22 * scalar * v0 - j12 * scalar * v1), x[1] - (-j21 * scalar * v0 + j11 * scalar * v1))
                if constraint is not None and not constraint(x):
                    break
                if math.isnan(x[0]) or math.isnan(x[1]) or iterations > ITERATIONS_PER_TRY:
                    break
                iterations += 1
    return None


def _restarts(rng: np.random.Generator, init: np.ndarray):
    """The random starts ``rng.random(2) * init``, drawn 256 at a time (the same stream)."""
    while True:
        yield from map(tuple, (rng.random((256, 2)) * init).tolist())


def _pitman(sizes, counts, n, N, c1) -> float:
    c2 = float(counts[sizes == 2].sum()) or 1.0  # ARX: overestimate when there is no class of size 2
    u = float(counts.sum())
    c = c1 * (c1 - 1) / c2
    with np.errstate(divide="ignore", invalid="ignore"):  # Java's double division: ±inf or NaN, never an error
        t0 = np.float64(n * u * c - c1 * (n - 1) * (2 * u + c)) / np.float64(2 * c1 * u + c1 * c - n * c)
        a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    if not (np.isfinite(t0) and np.isfinite(a0)):  # no start for the solver: Pitman's estimate is unavailable
        return math.nan
    closed, iterative = _pitman_closed(sizes, counts, n, u), _pitman_iterative(sizes, counts, n, u)

    def theta_not_negative(x):
        return x[0] >= 0

    solution = solve(closed, (t0, a0), theta_not_negative)
    if solution is None:
        solution = solve(iterative, (t0, a0), theta_not_negative)
    else:
        test, _ = iterative(solution)
        if np.isnan(test).any() or abs(test[0]) > ACCURACY or abs(test[1]) > ACCURACY:
            solution = solve(iterative, (t0, a0), theta_not_negative)
    if solution is None:
        return math.nan
    return _pitman_result(float(solution[0]), float(solution[1]), N)


def _pitman_closed(sizes, counts, n, u):
    """The score equations of Pitman's model and their derivatives, closed forms in
    digamma/trigamma (ARX's ``getMasterFunctionClosed``)."""
    big = sizes != 1
    keys, values = sizes[big], counts[big]

    def function(x):
        t, a = np.float64(x[0]), np.float64(x[1])
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

    return function


def _pitman_iterative(sizes, counts, n, u):
    """The same equations as sums (ARX's ``getMasterFunctionIterative``):
    o1 = Σ_{i<u} 1/(θ+iα), o3 = Σ_{i<u} i/(θ+iα), o2 = Σ_{i<n} 1/(θ+i),
    o4 = Σ_j c_j Σ_{i<j} 1/(i−α) over class sizes j > 1; F = (o1 − o2, o3 − o4)."""
    i_u = np.arange(1, int(math.ceil(u)), dtype=np.float64)
    i_n = np.arange(1, int(math.ceil(n)), dtype=np.float64)
    big = sizes != 1
    keys, values = sizes[big].astype(np.int64), counts[big]
    i_k = np.arange(1, int(keys.max()) if len(keys) else 1, dtype=np.float64)

    def function(x):
        t, a = float(x[0]), float(x[1])
        inv = 1.0 / (t + i_u * a)
        inv2 = inv * inv
        d1, d5, d3 = inv2.sum(), (i_u * inv2).sum(), (i_u * i_u * inv2).sum()
        o1, o3 = inv.sum(), (i_u * inv).sum()
        below = 1.0 / (i_k - a)
        # Σ_{i<j} for each class size j: prefix sums over i = 1 … max j − 1
        s1 = np.concatenate(([0.0], np.cumsum(below * below)))
        s2 = np.concatenate(([0.0], np.cumsum(below)))
        d4, o4 = float((values * s1[keys - 1]).sum()), float((values * s2[keys - 1]).sum())
        inv_n = 1.0 / (t + i_n)
        d2, o2 = (inv_n * inv_n).sum(), inv_n.sum()
        return np.array([o1 - o2, o3 - o4]), np.array([[d2 - d1, -d5], [-d5, -d3 - d4]])

    return function


def _pitman_result(t: float, a: float, N: float) -> float:
    """Γ(θ+1)/Γ(θ+α) · N^α, by log-Gamma and by Gamma; the larger of those in [0, N]."""
    if math.isnan(a) or math.isnan(t) or a == 0:
        return math.nan
    candidates = []
    try:
        if t + 1.0 > 0 and t + a > 0:  # ARX's logGamma is NaN for x ≤ 0
            candidates.append(math.exp(math.lgamma(t + 1.0) - math.lgamma(t + a)) * N ** a)
    except (ValueError, OverflowError):
        pass
    try:
        candidates.append(math.gamma(t + 1.0) / math.gamma(t + a) * N ** a)
    except (ValueError, OverflowError, ZeroDivisionError):
        pass
    valid = [v for v in candidates if 0.0 <= v <= N]
    return max(valid) if valid else math.nan


# ---------------------------------------------------------------------------------- SNB

def snb_k(sizes, counts, c1, f) -> float:
    """SNB's K, Shlosser's estimator of the number of population classes as ARX writes it
    (the "- 1" inside the second sum included); NaN where a denominator is 0."""
    u = float(counts.sum())
    f2 = f * f
    v1 = float((sizes * f2 * (1 - f2) ** (sizes - 1) * counts).sum())
    v2 = float(((1 - f) ** sizes * counts * (1 + f) ** sizes - 1).sum())
    v3 = float(((1 - f) ** sizes * counts).sum())
    v4 = float((sizes * f * (1 - f) ** (sizes - 1) * counts).sum())
    if v2 == 0 or v4 == 0:
        return math.nan
    return u + c1 * (v1 / v2) * (v3 / v4) * (v3 / v4)


def _snb(sizes, counts, c1, f) -> float:
    c2 = float(counts[sizes == 2].sum())
    k = snb_k(sizes, counts, c1, f)
    if math.isnan(k):
        return math.nan

    def function(x):
        a, b = float(x[0]), float(x[1])
        def jacobian():
            x1, x2, y1, y2 = _in_floats(_snb_jacobian, (k, f), a, b)
            return (x1, x2), (y1, y2)

        return _in_floats(_snb_values, (k, f, c1, c2), a, b), jacobian

    solution = solve(function, (1.0, 1.0))
    if solution is None:
        return math.nan
    a, b = solution
    with np.errstate(all="ignore"):
        value = float(np.float64(k) * np.float64(b) ** np.float64(a))
    return value if math.isfinite(value) else math.nan  # ARX would report an infinite estimate


def _in_floats(equations, constants, a: float, b: float) -> list[float]:
    """``equations(*constants, a, b, log)`` in Python floats: the same IEEE double operations as
    NumPy's scalars (Java's doubles) at a fraction of their cost. Where Python raises instead
    (x/0, an overflowing power) they are taken on NumPy's scalars; a negative number to a
    fractional power is complex in Python, NaN in NumPy, and NaN stays NaN through every later
    operation: a result that is complex is NaN."""
    try:
        results = equations(*constants, a, b, _real_log)
    except (ZeroDivisionError, OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return [float(v) for v in equations(*constants, np.float64(a), np.float64(b), np.log)]
    return [v if type(v) is float else math.nan for v in results]  # noqa: E721


def _real_log(v):
    """NumPy's logarithm of a Python float (``math.log`` differs in the last bit of a few); a
    complex (NaN to NumPy) passes through, still complex."""
    return float(np.log(v)) if type(v) is float else v  # noqa: E721


def _snb_values(k, f, c1, c2, a, b, log):
    """SNB's two equations at (α, β) (ARX's ``ModelSNB`` master function), on NumPy scalars or
    Python floats alike."""
    d = (1 - f) * (1 - b)
    g1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1
    g2 = k * a * b ** a * (f * f) * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2
    return g1, g2


def _snb_jacobian(k, f, a, b, log):
    """Their derivatives ∂g1/∂α, ∂g1/∂β, ∂g2/∂α, ∂g2/∂β: ARX's closed forms (obtained with
    Matlab)."""
    f2 = f * f
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
    return x1, x2, y1, y2
