/// Units as people read them: seconds below one as milliseconds, ratios as percentages, large counts
/// and rates with k/M/bn, bytes in kB/MB/GB (decimal). One `HumanScale` is chosen per quantity (from its
/// value) and applied to its interval and alarm level too, so they read in the same unit.

/// The unit a quantity was measured in (as the simulator stores it).
package enum MeasuredUnit: Sendable, Equatable {
    /// Seconds; shown as ms below one second.
    case seconds
    /// A share in [0, 1]; shown as a percentage.
    case ratio
    /// A plain count; shown with k/M/bn from 10,000 up.
    case count
    /// Bytes; shown in B, kB, MB, GB, TB, PB (powers of 1000).
    case bytes
    /// Events per second, with a noun (e.g. "req"); shown like a count followed by "/s".
    case perSecond(noun: String)
    /// Anything else: the value with three significant digits and the unit as given.
    case other(String)
    // bandwidth
    /// Bits per second; shown in bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s (powers of 1000).
    case bitsPerSecond

    /// Maps a stored unit code: "s", "ratio", "count", "bytes", "1/s", "/s", "req/s", …; anything else is `.other`.
    package init(code: String) {
        switch code {
        case "s": self = .seconds
        // A factor (a utilisation, may exceed 1) reads as a percentage too.
        case "ratio", "factor": self = .ratio
        case "count", "": self = .count
        case "bytes", "B": self = .bytes
        case "1/s", "/s": self = .perSecond(noun: "")
        case "bit/s": self = .bitsPerSecond
        default:
            if code.hasSuffix("/s"), !code.contains(" ") { self = .perSecond(noun: String(code.dropLast(2))) } else { self = .other(code) }
        }
    }
}

/// How a quantity is displayed: multiply by `multiplier`, print `decimals` places, append `unit`.
package struct HumanScale: Sendable, Equatable {
    /// Applied to the stored value before printing (1000 for s → ms, 0.001 for B → kB, …).
    package let multiplier: Double
    /// The display unit, e.g. "ms", "%", "k/s", "GB"; may be empty.
    package let unit: String
    /// Digits after the point for the value at this scale (three significant digits, at most 2 places).
    package let decimals: Int

    /// Creates the value from its properties (see their documentation).
    package init(multiplier: Double, unit: String, decimals: Int) {
        self.multiplier = multiplier
        self.unit = unit
        self.decimals = decimals
    }

    /// The display scale for values around `magnitude` in `unit`.
    package static func choose(for unit: MeasuredUnit, magnitude: Double) -> HumanScale {
        let m = magnitude.isFinite ? abs(magnitude) : 0
        switch unit {
        case .seconds:
            if m < 1 { return HumanScale(multiplier: 1000, unit: "ms", decimals: significantDecimals(m * 1000)) }
            return HumanScale(multiplier: 1, unit: "s", decimals: significantDecimals(m))
        case .ratio:
            return HumanScale(multiplier: 100, unit: "%", decimals: 1)
        case .count:
            return magnitudeScale(m, suffix: "")
        case .perSecond(let noun):
            let base = magnitudeScale(m, suffix: "")
            let rate = noun.isEmpty ? "/s" : noun + "/s"
            let unit = base.unit.isEmpty ? rate : (noun.isEmpty ? base.unit + rate : base.unit + " " + rate)
            return HumanScale(multiplier: base.multiplier, unit: unit, decimals: base.decimals)
        case .bytes:
            let (unit, divisor) = byteUnit(forMagnitude: m)
            return HumanScale(multiplier: 1 / divisor, unit: unit, decimals: divisor == 1 ? 0 : significantDecimals(m / divisor))
        case .other(let code):
            return HumanScale(multiplier: 1, unit: code, decimals: significantDecimals(m))
        case .bitsPerSecond:
            let (unit, divisor) = bitRateUnit(forMagnitude: m)
            return HumanScale(multiplier: 1 / divisor, unit: unit, decimals: significantDecimals(m / divisor))
        }
    }

    /// The decimal (SI) byte unit for values up to `magnitude` and its size: B, kB, MB, GB, TB, PB.
    static func byteUnit(forMagnitude magnitude: Double) -> (unit: String, divisor: Double) {
        let units = ["B", "kB", "MB", "GB", "TB", "PB"]
        var index = 0
        var divisor = 1.0
        while index + 1 < units.count && magnitude >= divisor * 1000 {
            divisor *= 1000
            index += 1
        }
        return (units[index], divisor)
    }

    /// The decimal bit-rate unit for values up to `magnitude` and its size: bit/s … Tbit/s.
    static func bitRateUnit(forMagnitude magnitude: Double) -> (unit: String, divisor: Double) {
        let units = ["bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"]
        var index = 0
        var divisor = 1.0
        while index + 1 < units.count && magnitude >= divisor * 1000 {
            divisor *= 1000
            index += 1
        }
        return (units[index], divisor)
    }

    /// Counts below 10,000 as they are (no decimals when whole), above with k, M or bn.
    private static func magnitudeScale(_ m: Double, suffix: String) -> HumanScale {
        if m >= 1e9 { return HumanScale(multiplier: 1e-9, unit: "bn", decimals: significantDecimals(m / 1e9)) }
        if m >= 1e6 { return HumanScale(multiplier: 1e-6, unit: "M", decimals: significantDecimals(m / 1e6)) }
        if m >= 1e4 { return HumanScale(multiplier: 1e-3, unit: "k", decimals: significantDecimals(m / 1e3)) }
        return HumanScale(multiplier: 1, unit: "", decimals: m >= 100 ? 0 : significantDecimals(m))
    }

    /// Places for three significant digits, at most 2: 2 below 10, 1 below 100, else 0 (zero: 0).
    static func significantDecimals(_ scaled: Double) -> Int {
        if scaled == 0 || !scaled.isFinite { return 0 }
        return scaled < 10 ? 2 : (scaled < 100 ? 1 : 0)
    }

    /// `value` at this scale, without the unit: "412", "1.31", "23.8".
    package func number(_ value: Double) -> String {
        TextFormat.fixed(value * multiplier, decimals: decimals, grouping: true)
    }

    /// `value` at this scale with the unit: "412 ms", "97.2 %", "23.8 k req/s", "22.6 GB".
    package func text(_ value: Double) -> String {
        guard value.isFinite else { return TextFormat.notANumber }
        return unit.isEmpty ? number(value) : number(value) + " " + unit
    }

    /// `value` in `unit`, scaled for its own magnitude: the one-call form for table cells and stdout.
    package static func format(_ value: Double, unit: MeasuredUnit) -> String {
        choose(for: unit, magnitude: value).text(value)
    }
}
