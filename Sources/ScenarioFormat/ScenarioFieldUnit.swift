/// The unit of a numeric scenario field, as its name declares it: the format names every quantity
/// with its unit last (`aheadSeconds`, `capacityBytes`, `sendRatePerMinute`), and
/// docs/scenario-format.md's unit column says the same for every field (ScenarioFormatDocTests
/// checks each documented numeric field against this).
package enum ScenarioFieldUnit: Sendable, Equatable {
    /// `…Seconds`, `seconds…`.
    case seconds
    /// `bytes`, `…Bytes`, `…BytesMax`.
    case bytes
    /// `…BitsPerSecond`.
    case bitsPerSecond
    /// `…PerMinute`: pushes per minute (the format's only per-minute quantities are push rates).
    case pushesPerMinute
    /// `…PerHour`: pushes per hour.
    case pushesPerHour
    /// `…Share`, `…Probability`: a fraction in [0, 1].
    case fraction
    /// Any other integer field: a count (workers, entries, PoPs, …).
    case count
    /// Any other number: weights, factors, confidence levels (no unit).
    case none

    /// The unit of the field named `key` (the last component of its path, `[i]` indexes allowed),
    /// which holds integers when `isInteger`.
    package init(key: String, isInteger: Bool) {
        let name = key.split(separator: "[").first.map(String.init) ?? key
        if name.hasSuffix("BitsPerSecond") {
            self = .bitsPerSecond
        } else if name.hasSuffix("Seconds") || name.hasPrefix("seconds") {
            self = .seconds
        } else if name == "bytes" || name.hasSuffix("Bytes") || name.hasSuffix("BytesMax") {
            self = .bytes
        } else if name.hasSuffix("PerMinute") {
            self = .pushesPerMinute
        } else if name.hasSuffix("PerHour") {
            self = .pushesPerHour
        } else if name.hasSuffix("Share") || name.hasSuffix("Probability") {
            self = .fraction
        } else {
            self = isInteger ? .count : .none
        }
    }

    /// Members of a distribution (docs/scenario-format.md, Distributions) in the unit of the field
    /// holding it: `serviceSeconds.mean` is seconds. The others (`mu`, `sigma`, `shape`, …) have none.
    static let distributionMembersInFieldUnit: Set<String> = ["value", "lower", "upper", "mean", "sd", "median", "p90", "scale", "offset"]
    /// Keys that nest a distribution inside another (`mixture`, `shift`).
    static let distributionNesting: Set<String> = ["distribution", "components"]

    /// The unit of the field at the `--set` path `path` (e.g. `campaigns[0].warm.aheadSeconds`); a
    /// distribution's member in the field's unit takes the unit of the field holding it.
    package init(path: String, isInteger: Bool) {
        let keys = path.split(separator: ".").map { String($0.split(separator: "[").first ?? $0) }
        guard let last = keys.last else { self = .none; return }
        guard Self.distributionMembersInFieldUnit.contains(last),
              let field = keys.dropLast().last(where: { !Self.distributionNesting.contains($0) && !Self.distributionMembersInFieldUnit.contains($0) })
        else { self.init(key: last, isInteger: isInteger); return }
        self.init(key: field, isInteger: false)
    }

    /// The unit as docs/scenario-format.md writes it ("" for none).
    package var text: String {
        switch self {
        case .seconds: return "s"
        case .bytes: return "bytes"
        case .bitsPerSecond: return "bit/s"
        case .pushesPerMinute: return "pushes/min"
        case .pushesPerHour: return "pushes/h"
        case .fraction: return "share"
        case .count: return "count"
        case .none: return ""
        }
    }
}
