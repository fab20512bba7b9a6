import Stochastic

// The rules every distribution-valued duration or size of a scenario meets, whatever its
// section: no value below 0 (the model would clamp it to 0 and report, say, a 0 ms render), and
// nothing beyond the most the model takes for that field (it would clamp there too). The bound
// is the model's own constant, the one its sampler clamps to, so the two cannot drift apart.

extension ConfigRule where Value == Distribution {
    /// Durations in seconds, at most `secondsMax` (see `magnitudes`).
    static func durations(atMost secondsMax: Double) -> ConfigRule {
        magnitudes("s", atMost: secondsMax)
    }

    /// Non-negative values in `unit`, at most `max`: the distribution can draw no value below 0
    /// (its support's lower bound is ≥ 0), a distribution bounded above draws nothing beyond
    /// `max`, and one unbounded above has a finite mean within `max` (its rare tail is clamped).
    /// Its parameters were validated when the distribution was decoded.
    static func magnitudes(_ unit: String, atMost max: Double) -> ConfigRule {
        ConfigRule(verdict: { d in
            let (lower, upper) = d.supportBounds
            guard lower >= 0 else {
                return ("values ≥ 0 \(unit): a distribution that cannot draw a negative value (a constant or uniform ≥ 0, "
                        + "a normal truncated with \"lower\": 0, an exponential, lognormal, gamma or weibull, or a shift by an offset ≥ 0)",
                        "values down to \(ScenarioKnob.numberText(lower))")
            }
            if upper.isFinite {
                guard upper <= max else {
                    return ("values at most \(ScenarioKnob.numberText(max)) \(unit), the most the model takes here (it would clamp longer draws)", "values up to \(ScenarioKnob.numberText(upper))")
                }
                return nil
            }
            guard let mean = d.mean, mean.isFinite else {
                return ("a finite mean (a distribution unbounded above needs one)", "mean \(d.mean.map(ScenarioKnob.numberText) ?? "infinite")")
            }
            guard mean <= max else {
                return ("a mean at most \(ScenarioKnob.numberText(max)) \(unit), the most the model takes here (it clamps draws beyond it)", "mean \(ScenarioKnob.numberText(mean))")
            }
            return nil
        })
    }
}
