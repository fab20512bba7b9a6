/// Why a statistic could not be computed, or two summaries could not be merged.
///
/// Every case names the offending value so that a report or CLI message can be precise.
@usableFromInline package enum StatisticsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A computation needs at least `needed` values but got `found`.
    case tooFewValues(needed: Int, found: Int)
    /// A confidence level outside the open interval (0, 1).
    case invalidConfidenceLevel(Double)
    /// A NaN or infinite observation at `index` of the input.
    case nonFiniteValue(index: Int, value: Double)
    /// Paired samples of different lengths.
    case mismatchedPairCount(baseline: Int, variant: Int)
    /// A parameter outside its allowed range (name, value rendered, what was expected).
    case invalidParameter(name: String, value: String, expected: String)
    /// Two summaries with different configurations cannot be merged exactly.
    case incompatibleConfiguration(String)

    @usableFromInline package var description: String {
        switch self {
        case let .tooFewValues(needed, found):
            return "expected at least \(needed) values, found \(found)"
        case let .invalidConfidenceLevel(level):
            return "confidence level: expected a number in (0, 1), found \(level)"
        case let .nonFiniteValue(index, value):
            return "value [\(index)]: expected a finite number, found \(value)"
        case let .mismatchedPairCount(baseline, variant):
            return "paired comparison: expected as many variant values as baseline values (\(baseline)), found \(variant)"
        case let .invalidParameter(name, value, expected):
            return "\(name): expected \(expected), found \(value)"
        case let .incompatibleConfiguration(message):
            return "cannot merge: \(message)"
        }
    }
}

/// Checks a confidence level is in (0, 1).
func validateLevel(_ level: Double) throws(StatisticsError) {
    guard level > 0, level < 1 else { throw .invalidConfidenceLevel(level) }
}
