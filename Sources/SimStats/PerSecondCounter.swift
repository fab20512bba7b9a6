/// Per-second event counters over a fixed horizon (e.g. requests per second at the origin),
/// exactly mergeable across shards.
///
/// Memory is fixed at init: one `UInt64` per second of the horizon. Events at or after the horizon
/// are counted in `beyondHorizonCount`, events at negative times in `beforeStartCount`; both are
/// reported, never silently dropped.
///
/// Codable form (sparse, sorted by second):
/// `{"horizonSeconds": H, "beforeStartCount": B, "beyondHorizonCount": O, "seconds": [[second, count], ...]}`.
@usableFromInline package struct PerSecondCounter: Sendable, Equatable, Codable {
    /// Largest allowed horizon: 31 days (≈ 21 MiB of counters).
    @usableFromInline package static let horizonLimitSeconds = 31 * 86_400

    /// Number of one-second slots, covering [0, horizonSeconds) seconds.
    @usableFromInline package let horizonSeconds: Int
    @usableFromInline var counts: [UInt64]
    /// Events at times ≥ `horizonSeconds`.
    @usableFromInline package private(set) var beyondHorizonCount: UInt64 = 0
    /// Events at negative times.
    @usableFromInline package private(set) var beforeStartCount: UInt64 = 0

    /// Zeroed counters for `horizonSeconds` seconds.
    /// - Throws: `.invalidParameter` unless 1 ≤ horizon ≤ `horizonLimitSeconds`.
    /// - Complexity: O(horizonSeconds).
    @usableFromInline package init(horizonSeconds: Int) throws(StatisticsError) {
        guard horizonSeconds >= 1, horizonSeconds <= Self.horizonLimitSeconds else {
            throw .invalidParameter(name: "horizonSeconds", value: "\(horizonSeconds)",
                                    expected: "an integer in 1...\(Self.horizonLimitSeconds)")
        }
        self.horizonSeconds = horizonSeconds
        self.counts = [UInt64](repeating: 0, count: horizonSeconds)
    }

    /// Counts `times` events at virtual time `timeMicroseconds` (slot ⌊t / 10⁶⌋).
    /// - Complexity: O(1); no allocation. Inlinable: models call it per request.
    @inlinable
    package mutating func add(atMicroseconds timeMicroseconds: Int64, times: UInt64 = 1) {
        if timeMicroseconds >= 0 && timeMicroseconds / 1_000_000 < Int64(horizonSeconds) {
            counts[Int(timeMicroseconds / 1_000_000)] += times
        } else {
            addOutsideHorizon(atMicroseconds: timeMicroseconds, times: times)
        }
    }

    /// `add` for a time before 0 or at or after the horizon.
    @usableFromInline
    mutating func addOutsideHorizon(atMicroseconds timeMicroseconds: Int64, times: UInt64) {
        if timeMicroseconds < 0 {
            beforeStartCount += times
        } else {
            beyondHorizonCount += times
        }
    }

    /// The count in slot `second` (0 outside the horizon).
    /// - Complexity: O(1).
    @usableFromInline package subscript(second: Int) -> UInt64 {
        second >= 0 && second < horizonSeconds ? counts[second] : 0
    }

    /// All events counted, including before-start and beyond-horizon ones.
    /// - Complexity: O(horizonSeconds).
    @usableFromInline package var totalCount: UInt64 {
        counts.reduce(beforeStartCount + beyondHorizonCount, +)
    }

    /// The largest per-second count inside the horizon and its first second; nil if all are 0.
    /// - Complexity: O(horizonSeconds).
    @usableFromInline package var peak: (second: Int, count: UInt64)? {
        var best: (second: Int, count: UInt64)? = nil
        for (s, c) in counts.enumerated() where c > (best?.count ?? 0) { best = (s, c) }
        return best
    }

    /// Adds `other`'s counts slot by slot (bit-identical to counting both event streams in one).
    /// - Throws: `.incompatibleConfiguration` if the horizons differ.
    /// - Complexity: O(horizonSeconds).
    @usableFromInline package mutating func merge(_ other: PerSecondCounter) throws(StatisticsError) {
        guard other.horizonSeconds == horizonSeconds else {
            throw .incompatibleConfiguration("horizonSeconds \(other.horizonSeconds) differs from \(horizonSeconds)")
        }
        for i in counts.indices { counts[i] += other.counts[i] }
        beyondHorizonCount += other.beyondHorizonCount
        beforeStartCount += other.beforeStartCount
    }

    private enum CodingKeys: String, CodingKey {
        case horizonSeconds, beforeStartCount, beyondHorizonCount, seconds
    }

    @usableFromInline package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(horizonSeconds, forKey: .horizonSeconds)
        try c.encode(beforeStartCount, forKey: .beforeStartCount)
        try c.encode(beyondHorizonCount, forKey: .beyondHorizonCount)
        var seconds = c.nestedUnkeyedContainer(forKey: .seconds)
        for (s, n) in counts.enumerated() where n > 0 { try seconds.encode([UInt64(s), n]) }
    }

    /// Decodes and validates: horizon in range, seconds strictly ascending inside it, counts > 0.
    @usableFromInline package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let horizon = try c.decode(Int.self, forKey: .horizonSeconds)
        do {
            try self.init(horizonSeconds: horizon)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .horizonSeconds, in: c, debugDescription: error.description)
        }
        beforeStartCount = try c.decode(UInt64.self, forKey: .beforeStartCount)
        beyondHorizonCount = try c.decode(UInt64.self, forKey: .beyondHorizonCount)
        var seconds = try c.nestedUnkeyedContainer(forKey: .seconds)
        var previous: UInt64? = nil
        while !seconds.isAtEnd {
            let pair = try seconds.decode([UInt64].self)
            guard pair.count == 2, pair[0] < UInt64(horizon), pair[1] > 0, previous.map({ pair[0] > $0 }) ?? true else {
                throw DecodingError.dataCorruptedError(in: seconds, debugDescription:
                    "expected [second < \(horizon) ascending, count > 0], found \(pair)")
            }
            previous = pair[0]
            counts[Int(pair[0])] = pair[1]
        }
    }
}
