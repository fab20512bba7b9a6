#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How well a fitted CDF matches the data.
@usableFromInline package struct GoodnessOfFit: Sendable, Equatable, Codable {
    /// The Kolmogorov–Smirnov distance sup |F̂(x) − F(x)|, with F̂ the Kaplan–Meier estimate (the
    /// empirical CDF when nothing is censored), taken over the observed values.
    @usableFromInline package let ksStatistic: Double
    /// The asymptotic Kolmogorov p-value (Stephens' small-sample correction) for an uncensored
    /// sample; nil with censoring. The parameters were estimated from the same data, so it is
    /// conservative (too large): read it as a screen, not a test.
    @usableFromInline package let ksPValue: Double?
}

/// Kolmogorov–Smirnov distances, Kaplan–Meier curves and QQ points for censored samples.
@usableFromInline package enum GoodnessOfFitTest {
    /// One step of a Kaplan–Meier curve.
    @usableFromInline package struct SurvivalStep: Sendable, Equatable {
        /// An observed value.
        @usableFromInline package let time: Double
        /// Ŝ just before `time`.
        @usableFromInline package let survivalBefore: Double
        /// Ŝ at `time` (after the step).
        @usableFromInline package let survival: Double
    }

    /// The Kaplan–Meier estimate of P(X > t) at each distinct observed value (ties: events before
    /// censorings at the same value, the usual convention).
    /// - Complexity: O(n log n).
    @usableFromInline package static func kaplanMeier(_ sample: CensoredSample) -> [SurvivalStep] {
        var events = sample.observed.map { ($0, 0) } + sample.censored.map { ($0, 1) }
        events.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var atRisk = Double(events.count)
        var s = 1.0
        var steps: [SurvivalStep] = []
        var i = 0
        while i < events.count {
            let t = events[i].0
            var deaths = 0.0, leaving = 0.0
            while i < events.count, events[i].0 == t {
                if events[i].1 == 0 { deaths += 1 }
                leaving += 1
                i += 1
            }
            if deaths > 0 {
                let before = s
                s *= 1 - deaths / atRisk
                steps.append(SurvivalStep(time: t, survivalBefore: before, survival: s))
            }
            atRisk -= leaving
        }
        return steps
    }

    /// The KS distance between the Kaplan–Meier estimate of `sample` and `cdf`.
    /// With a resolution r, the curve's step at a grid value x holds the values in its cell, so it is
    /// compared with F(x + r/2) after the step and F(x − r/2) before it.
    @usableFromInline package static func kolmogorovSmirnov(_ sample: CensoredSample, cdf: (Double) -> Double) -> GoodnessOfFit {
        var d = 0.0
        let half = sample.resolution / 2
        for step in kaplanMeier(sample) {
            let after = cdf(step.time + half), before = half > 0 ? cdf(max(step.time - half, 0)) : after
            d = max(d, abs(1 - step.survival - after), abs(1 - step.survivalBefore - before))
        }
        let p = sample.censored.isEmpty ? kolmogorovPValue(d, n: sample.observed.count) : nil
        return GoodnessOfFit(ksStatistic: d, ksPValue: p)
    }

    /// P(D_n > d) ≈ Q_KS((√n + 0.12 + 0.11/√n) d), Q_KS(λ) = 2 Σ_{k≥1} (−1)^(k−1) e^(−2k²λ²).
    @usableFromInline package static func kolmogorovPValue(_ d: Double, n: Int) -> Double {
        let rn = Double(n).squareRoot()
        let lambda = (rn + 0.12 + 0.11 / rn) * d
        guard lambda > 0.2 else { return 1 }
        var sum = 0.0, sign = 1.0
        for k in 1...100 {
            let term = exp(-2 * Double(k * k) * lambda * lambda)
            sum += sign * term
            if term < 1e-12 { break }
            sign = -sign
        }
        return min(1, max(0, 2 * sum))
    }

    /// Up to `count` QQ points (empirical quantile, model quantile) at probabilities
    /// (j − ½)/count, the empirical quantile read off the Kaplan–Meier curve; probabilities beyond
    /// the curve's reach (heavy censoring) are left out.
    @usableFromInline package static func qqPoints(_ sample: CensoredSample, count: Int, quantile: (Double) -> Double) -> [(empirical: Double, model: Double)] {
        let steps = kaplanMeier(sample)
        var out: [(empirical: Double, model: Double)] = []
        var k = 0
        for j in 0..<max(1, count) {
            let p = (Double(j) + 0.5) / Double(max(1, count))
            while k < steps.count, 1 - steps[k].survival < p { k += 1 }
            guard k < steps.count else { break }
            out.append((steps[k].time, quantile(p)))
        }
        return out
    }
}
