"""Population uniques as ARX computes them (privacy-models.md §3; ARX's ModelZayatz,
ModelPitman, ModelSNB, RiskModelPopulationUniqueness and the newtonraphson solver).

The reference below is a transparent, line-by-line transcription of ARX's Java on a
class-size histogram {size: count}: plain loops over the histogram, SciPy's hypergeometric
distribution and polygamma functions (not the core's), and ARX's Newton–Raphson loop.
The core's vectorised port must give the same numbers on small frequency sets."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tklscore.core.risk.population_uniqueness import population_uniques

ACCURACY, PER_TRY, TOTAL = 1e-6, 1000, 10000  # ARXSolverConfiguration


def _newton_raphson(master, start, constraint=None):
    """NewtonRaphson2D._solve with a master function, in Java's double arithmetic (NumPy
    scalars: x/0 is ±∞, 0/0 NaN); None where Java returns (NaN, NaN). A failed try restarts
    at (random · start.x, random · start.y), Java's Math.random() drawn from a seeded
    generator as the core does; ARX's time limits are left out."""
    init = (np.float64(start[0]), np.float64(start[1]))
    rng = np.random.default_rng(0)
    solution, total = None, 0
    with np.errstate(all="ignore"):
        while total <= TOTAL:
            if solution is None:
                solution = list(init)
            else:
                r = rng.random(2)
                solution = [r[0] * init[0], r[1] * init[1]]
            iterations = 0
            while True:
                total += 1
                (fx, fy), ((x1, x2), (y1, y2)) = master(solution)
                if abs(fx) <= ACCURACY and abs(fy) <= ACCURACY:
                    return solution
                scalar = np.float64(1.0) / (x1 * y2 - x2 * y1)
                i1, i2, j1, j2 = y2 * scalar, -x2 * scalar, -y1 * scalar, x1 * scalar
                solution = [solution[0] - (i1 * fx + i2 * fy), solution[1] - (j1 * fx + j2 * fy)]
                if constraint is not None and not constraint(solution):
                    break
                if np.isnan(solution[0]) or np.isnan(solution[1]) or iterations > PER_TRY:
                    break
                iterations += 1
    return None


def arx_zayatz(histogram: dict[int, int], f: float) -> float:
    from scipy import stats   # here, not at collection: scipy.stats costs each xdist worker about a CPU-second

    n = sum(size * count for size, count in histogram.items())
    N = 1.0 / f * n
    u = sum(histogram.values())
    temp = 0.0
    for size, count in sorted(histogram.items()):
        temp += (count / u) * stats.hypergeom(int(N), size, int(n)).pmf(1)
    p = ((histogram.get(1, 0) / u) * stats.hypergeom(int(N), 1, int(n)).pmf(1)) / temp
    return histogram.get(1, 0) * p / f


def arx_pitman(histogram: dict[int, int], f: float) -> float:
    from scipy import special

    c1, c2 = histogram.get(1, 0), histogram.get(2, 0) or 1
    u = sum(histogram.values())
    n = sum(size * count for size, count in histogram.items())
    N = 1.0 / f * n
    c = (c1 * (c1 - 1)) / c2
    t = ((n * u * c) - (c1 * (n - 1) * ((2 * u) + c))) / (((2 * c1 * u) + (c1 * c)) - (n * c))
    a = ((t * (c1 - n)) + ((n - 1) * c1)) / (n * u)
    psi, psi1 = special.digamma, lambda x: special.polygamma(1, x)

    def closed(x):
        t, a = x
        v0 = u - 1
        v1, v2 = psi(v0 + t / a + 1), psi1((a + t + a * v0) / a)
        v3, v4 = psi1(t / a + 1), psi(t / a + 1)
        v5 = a * a
        d1 = (v3 - v2) / v5
        d5 = ((a * v1 + t * v2) - a * v4 - t * v3) / (v5 * a)
        d3 = ((v5 * v0 - t * t * v2) + t * t * v3 - 2 * a * t * v1 + 2 * a * t * v4) / (v5 * v5)
        o1, o3 = (v1 - v4) / a, (-t * v1 + a * v0 + t * v4) / (a * a)
        o2, d2 = psi(n + t) - psi(t + 1), psi1(t + 1) - psi1(n + t)
        d4 = o4 = 0.0
        for key, value in histogram.items():
            if key != 1:
                d4 += value * (psi1(1 - a) - psi1(key - a))
                o4 += value * (psi(key - a) - psi(1 - a))
        return (o1 - o2, o3 - o4), ((d2 - d1, -d5), (-d5, -d3 - d4))

    def iterative_master(x):
        t, a = x
        d1 = d2 = d3 = d4 = d5 = o1 = o2 = o3 = o4 = 0.0
        for i in range(1, u):
            val0 = t + i * a
            d1 += 1 / (val0 * val0)
            d5 += i / (val0 * val0)
            d3 += i * i / (val0 * val0)
            o1 += 1 / val0
            o3 += i / val0
        for key, value in histogram.items():
            if key != 1:
                d4 += value * sum(1 / ((j - a) * (j - a)) for j in range(1, key))
                o4 += value * sum(1 / (j - a) for j in range(1, key))
        for i in range(1, n):
            d2 += 1 / ((t + i) * (t + i))
            o2 += 1 / (t + i)
        return (o1 - o2, o3 - o4), ((d2 - d1, -d5), (-d5, -d3 - d4))

    solution = _newton_raphson(closed, (t, a), lambda x: x[0] >= 0)
    if solution is None:
        solution = _newton_raphson(iterative_master, (t, a), lambda x: x[0] >= 0)
    else:
        test = iterative_master(solution)[0]
        if np.isnan(test[0]) or np.isnan(test[1]) or abs(test[0]) > ACCURACY or abs(test[1]) > ACCURACY:
            solution = _newton_raphson(iterative_master, (t, a), lambda x: x[0] >= 0)
    if solution is None:
        return math.nan
    t, a = float(solution[0]), float(solution[1])
    val1 = _java(lambda: math.exp(math.lgamma(t + 1) - math.lgamma(t + a)) * N ** a)
    val2 = _java(lambda: math.gamma(t + 1) / math.gamma(t + a) * N ** a)
    valid = [v for v in (val1, val2) if 0 <= v <= N]  # NaN and ∞ fail the test, as in Java
    return max(valid) if valid else math.nan


def _java(compute) -> float:
    """Java's double arithmetic: an overflow is ∞ (so ∞/∞ is NaN) instead of an exception."""
    try:
        return compute()
    except OverflowError:
        return math.inf


def arx_snb(histogram: dict[int, int], f: float) -> float:
    c1, c2 = histogram.get(1, 0), histogram.get(2, 0)
    u = sum(histogram.values())
    var1 = var2 = var3 = var4 = 0.0
    var5 = f * f
    for size, count in sorted(histogram.items()):
        val2 = (1 - f) ** size * count
        var1 += size * var5 * (1 - var5) ** (size - 1) * count
        var2 += val2 * (1 + f) ** size - 1
        var3 += val2
        var4 += size * f * (1 - f) ** (size - 1) * count
    k = u + c1 * (var1 / var2) * (var3 / var4) * (var3 / var4)

    def master(x):
        a, b = x
        dividend = (1 - f) * (1 - b)
        fx = k * f * (b / (1 - dividend)) ** a * (((a * dividend) / (1 - dividend)) + 1) - c1
        fy = k * a * b ** a * (f * f) * (1 - b) / 2 * (1 - dividend) ** (a + 2) * (2 - (1 - a) * dividend) - c2
        val0 = (b - 1) * (f - 1)
        val1, val2 = val0 - 1, 1 - val0
        val3, val4 = a * val0 / val1 - 1, (-b / val1) ** a
        val6, val7 = f ** 2, b ** a
        val8 = val7 * val6 * k
        val9, val10, val11 = a * val8, 2 * val2 ** (a + 2), val1 ** 2
        val13, val14, val15, val16 = f * k, f - 1, a - 1, b - 1
        val17 = val15 * val0
        val18 = val6 * k
        val19 = val17 + 2
        val20 = val18 * val19
        x1 = -val13 * np.log(-b / val1) * val3 * val4 - (val13 * val4 * val0) / val1
        x2 = (a * val13 * (1 / val1 - (b * val14) / val11) * val3 * (-b / val1) ** val15
              - val13 * val4 * ((a * val14) / val1 - (a * val16 * val14 ** 2) / val11))
        y1 = ((val9 * np.log(val2) * val19 * val16) / val10 - (val9 * val16 ** 2 * val14) / val10
              - (val7 * val20 * val16) / val10 - (a * val7 * val18 * np.log(b) * val19 * val16) / val10)
        y2 = (-(val9 * val19) / val10 - (a ** 2 * b ** val15 * val20 * val16) / val10
              - (a * val7 * val18 * val17) / val10 - (a * val7 * val20 * (a + 2) * val0) / (2 * val2 ** (a + 3)))
        return (fx, fy), ((x1, x2), (y1, y2))

    solution = _newton_raphson(master, (1.0, 1.0))
    if solution is None:
        return math.nan
    a, b = solution
    with np.errstate(all="ignore"):
        return float(k * b ** a)


def arx_dankar(histogram, f, pitman, zayatz, snb) -> tuple[float, str]:
    if f <= 0.1:
        return (pitman, "pitman") if pitman and not math.isnan(pitman) else (zayatz, "zayatz")  # Zayatz fallback
    if snb and not math.isnan(snb):
        return (zayatz, "zayatz") if zayatz < snb else (snb, "snb")
    return zayatz, "zayatz"


HISTOGRAMS = {
    "small": {1: 5, 2: 3, 3: 2, 5: 1},
    "skewed": {1: 40, 2: 12, 3: 6, 4: 3, 7: 2, 20: 1},
    "few uniques": {1: 3, 2: 10, 4: 8, 9: 5, 30: 2},
    "many uniques": {1: 120, 2: 30, 3: 9, 5: 2},
    "wide": {1: 300, 2: 120, 3: 60, 4: 30, 5: 20, 8: 10, 15: 4, 40: 1},
}


def _sizes(histogram: dict[int, int]) -> np.ndarray:
    return np.repeat(np.array(list(histogram), dtype=np.int64), list(histogram.values()))


@pytest.mark.parametrize("name", list(HISTOGRAMS))
@pytest.mark.parametrize("f", [0.01, 0.05, 0.1, 0.3, 0.9, 0.95])  # SNB converges from 0.9 on
def test_population_uniques_equal_arx_s_algorithm(name, f):
    histogram = HISTOGRAMS[name]
    ours = population_uniques(_sizes(histogram), f)
    n = sum(s * c for s, c in histogram.items())
    assert ours.population_size == 1.0 / f * n  # ARX's N: not rounded
    zayatz, pitman, snb = arx_zayatz(histogram, f), arx_pitman(histogram, f), arx_snb(histogram, f)
    assert ours.zayatz == pytest.approx(zayatz, rel=1e-9)
    assert ours.pitman == (0.0 if math.isnan(pitman) else pytest.approx(pitman, rel=1e-9))  # NaN: unavailable
    assert ours.snb == (0.0 if math.isnan(snb) else pytest.approx(snb, rel=1e-9))
    dankar, model = arx_dankar(histogram, f, pitman, zayatz, snb)
    assert ours.dankar_model == model and ours.dankar == pytest.approx(dankar, rel=1e-9)
    assert ours.fractions()["zayatz"] == pytest.approx(zayatz / (1.0 / f * n), rel=1e-9)


def test_snb_is_chosen_when_it_is_smaller_than_zayatz():
    ours = population_uniques(_sizes(HISTOGRAMS["wide"]), 0.9)
    assert ours.dankar_model == "snb" and 0 < ours.snb < ours.zayatz
    assert ours.snb == pytest.approx(arx_snb(HISTOGRAMS["wide"], 0.9), rel=1e-9)


def test_a_sampling_fraction_that_does_not_divide_the_sample():
    # n = 27, f = 0.07: N = 385.714…; ARX keeps it real, and its hypergeometric terms use ⌊N⌋ = 385
    histogram = {1: 9, 2: 5, 3: 1, 5: 1}
    ours = population_uniques(_sizes(histogram), 0.07)
    assert ours.population_size == pytest.approx(27 / 0.07)
    assert ours.zayatz == pytest.approx(arx_zayatz(histogram, 0.07), rel=1e-9)
    assert ours.pitman == pytest.approx(arx_pitman(histogram, 0.07), rel=1e-9)


def test_without_sample_uniques_every_estimate_is_zero():
    none = population_uniques(_sizes({2: 4, 3: 1}), 0.1)
    assert (none.pitman, none.zayatz, none.snb, none.dankar, none.dankar_model) == (0.0, 0.0, 0.0, 0.0, "dankar")


def test_pitman_without_a_finite_start_is_unavailable_not_an_error():
    # sizes 1,1,1,2,3: the start's denominator 2·c1·u + c1·c − n·c is 0 (ARX's Java divides to ±inf)
    result = population_uniques(np.array([1, 1, 1, 2, 3]), 0.1)
    assert result.pitman == 0.0                     # unavailable, reported as ARX reports it
    assert result.dankar_model == "zayatz" and result.dankar == result.zayatz > 0
