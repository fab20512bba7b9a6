/// The unit of a numeric scenario field, as its name declares it: the format names every quantity
/// with its unit last (`aheadSeconds`, `capacityBytes`, `sendRatePerMinute`), and
/// docs/scenario-format.md's unit column says the same for every field (ScenarioFormatDocTests
/// checks each documented numeric field against this).
public enum ScenarioFieldUnit: Sendable, Equatable {
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
    public init(key: String, isInteger: Bool) {
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

    /// The unit of the field at the `--set` path `path` (e.g. `campaigns[0].warm.aheadSeconds`).
    public init(path: String, isInteger: Bool) {
        self.init(key: path.split(separator: ".").last.map(String.init) ?? path, isInteger: isInteger)
    }

    /// The unit as docs/scenario-format.md writes it ("" for none).
    public var text: String {
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
