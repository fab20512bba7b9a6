// Where a distribution's values can fall: the closed hull of its support. The scenario format
// checks duration and size fields with it (no negative durations, nothing beyond a field's bound)
// before any run, so a value the model would clamp is refused instead of silently bent.

extension Distribution {
    /// The smallest value a draw can take (the infimum of the support): `-infinity` for an
    /// untruncated normal, 0 for the families on (0, inf), `scale` for a Pareto. Categorical
    /// values and mixture components of zero weight are never drawn and do not count.
    package var supportLowerBound: Double { supportBounds.lower }

    /// The largest value a draw can take (the supremum of the support): `+infinity` for the
    /// unbounded families and an untruncated normal.
    package var supportUpperBound: Double { supportBounds.upper }

    /// Both ends of the support's hull (NaN for a table with nothing drawable, which validation
    /// refuses before it gets here).
    package var supportBounds: (lower: Double, upper: Double) {
        func hull(_ parts: [(lower: Double, upper: Double)]) -> (lower: Double, upper: Double) {
            (parts.map(\.lower).min() ?? .nan, parts.map(\.upper).max() ?? .nan)
        }
        switch self {
        case .constant(let value): return (value, value)
        case .uniform(let lower, let upper): return (lower, upper)
        case .exponential, .lognormal, .gamma, .weibull: return (0, .infinity)
        case .normal(_, _, let lower, let upper): return (lower ?? -.infinity, upper ?? .infinity)
        case .pareto(_, let scale): return (scale, .infinity)
        case .categorical(let values, let weights):
            return hull(zip(values, weights).filter { $0.1 > 0 }.map { (lower: $0.0, upper: $0.0) })
        case .empirical(let points): return (points.first?.value ?? .nan, points.last?.value ?? .nan)
        case .mixture(let components): return hull(components.filter { $0.weight > 0 }.map(\.distribution.supportBounds))
        case .shift(let offset, let distribution):
            let inner = distribution.supportBounds
            return (offset + inner.lower, offset + inner.upper)
        }
    }
}
