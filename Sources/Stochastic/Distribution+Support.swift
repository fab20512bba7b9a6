// Where a distribution's values can fall: the closed hull of its support. The scenario format
// checks duration and size fields with it (no negative durations, nothing beyond a field's bound)
// before any run, so a value the model would clamp is refused instead of silently bent.

extension Distribution {
    /// The smallest value a draw can take (the infimum of the support): `-infinity` for an
    /// untruncated normal, 0 for the families on (0, inf), `scale` for a Pareto. Categorical
    /// values and mixture components of zero weight are never drawn and do not count.
    package var supportLowerBound: Double {
        switch self {
        case .constant(let value): value
        case .uniform(let lower, _): lower
        case .exponential, .lognormal, .gamma, .weibull: 0
        case .normal(_, _, let lower, _): lower ?? -.infinity
        case .pareto(_, let scale): scale
        case .categorical(let values, let weights):
            zip(values, weights).filter { $0.1 > 0 }.map(\.0).min() ?? .nan
        case .empirical(let points): points.first?.value ?? .nan
        case .mixture(let components):
            components.filter { $0.weight > 0 }.map(\.distribution.supportLowerBound).min() ?? .nan
        case .shift(let offset, let distribution): offset + distribution.supportLowerBound
        }
    }

    /// The largest value a draw can take (the supremum of the support): `+infinity` for the
    /// unbounded families and an untruncated normal.
    package var supportUpperBound: Double {
        switch self {
        case .constant(let value): value
        case .uniform(_, let upper): upper
        case .exponential, .lognormal, .gamma, .weibull, .pareto: .infinity
        case .normal(_, _, _, let upper): upper ?? .infinity
        case .categorical(let values, let weights):
            zip(values, weights).filter { $0.1 > 0 }.map(\.0).max() ?? .nan
        case .empirical(let points): points.last?.value ?? .nan
        case .mixture(let components):
            components.filter { $0.weight > 0 }.map(\.distribution.supportUpperBound).max() ?? .nan
        case .shift(let offset, let distribution): offset + distribution.supportUpperBound
        }
    }
}
