/// A token bucket in exact integer arithmetic, refilled continuously: a message costs
/// `unitsPerMessage` units (the microseconds in a minute) and the bucket gains `ratePerMinute`
/// units a microsecond, so a rate of Q messages a minute adds exactly Q messages in every 60 s
/// window whatever the instants it is read at (no rounding can make a sender at the quota meet a
/// refusal). Instants earlier than the last one read add nothing (campaigns sending in the same
/// second read it slightly out of order; the tokens are conserved).
struct ProviderBucket: Sendable {
    static let unitsPerMessage: Int64 = 60_000_000
    /// Messages a minute (units a microsecond).
    let ratePerMinute: Int64
    /// The capacity, units.
    let capacityUnits: Int64
    var units: Int64
    var lastTicks: Int64

    /// A full bucket of `capacityMessages` refilled at `ratePerMinute`, as of `startTicks`.
    init(ratePerMinute: Int64, capacityMessages: Int64, startTicks: Int64 = 0) {
        self.ratePerMinute = max(1, ratePerMinute)
        capacityUnits = max(1, capacityMessages) * ProviderBucket.unitsPerMessage
        units = capacityUnits
        lastTicks = startTicks
    }

    /// Adds what the time since the last read brings, up to the capacity.
    @inline(__always)
    mutating func refill(to ticks: Int64) {
        guard ticks > lastTicks else { return }
        let elapsed = ticks - lastTicks
        lastTicks = ticks
        let room = capacityUnits - units
        // elapsed × rate may overflow for long gaps: compare against the time to fill first.
        if elapsed >= room / ratePerMinute + 1 { units = capacityUnits } else { units = min(capacityUnits, units + elapsed * ratePerMinute) }
    }

    /// Takes `messages` at `ticks` if the bucket holds them; false (nothing taken) otherwise.
    @inline(__always)
    mutating func take(_ messages: Int64, at ticks: Int64) -> Bool {
        refill(to: ticks)
        let need = messages * ProviderBucket.unitsPerMessage
        guard units >= need else { return false }
        units -= need
        return true
    }

    /// Microseconds from the last read until the bucket holds `messages` (0 if it does).
    func ticksUntil(_ messages: Int64) -> Int64 {
        let missing = messages * ProviderBucket.unitsPerMessage - units
        return missing <= 0 ? 0 : (missing + ratePerMinute - 1) / ratePerMinute
    }
}
