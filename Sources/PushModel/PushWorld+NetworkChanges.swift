import InfraModel
import PreloadKit
import SimKernel

// Devices that change network (`NetworkChanges`): the class a device is on when the model looks
// at it (a session starts, the user taps), and one change during a running session.
extension PushWorld {
    /// Device `d`'s attributes (`a`) with the network class it is on now; a tap counts a change
    /// from the device's previous look (`tap`).
    mutating func networkNow(_ d: DeviceID, _ a: DeviceAttributes, now: Int64, tap: Bool) -> DeviceAttributes {
        guard driver.networks.isOn else { return a }
        var b = a
        let (net, changed) = driver.networks.look(d.index, a, now: now, population: population)
        b.network = net
        if tap && changed { metrics.counters.tapsOnOtherNetwork += 1 }
        return b
    }

    /// Slot `s`'s session started now: the time of its device's next network change, and an event
    /// when that falls before the OS ends the handler.
    mutating func armNetworkChange(_ slotID: SessionSlot, kernel: inout Kernel) throws {
        let s = slotID.index
        guard driver.networks.isOn, driver.isLive(s) else { return }
        let now = kernel.now.ticks
        let d = Int(driver.slot[s].device)
        let w = PushWord(driver.slot[s].push)
        let kind = driver.slot[s].kind
        let rng = population.stream(entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40 | UInt64(kind.rawValue) << 48,
                                    purpose: NetworkChanges.purposeSession)
        let after = driver.networks.nextChangeSeconds(driver.slot[s].network, region: Int(driver.slot[s].region), rng)
        guard after < Double(driver.budgetTicks(kind)) / 1e6 else { return }
        let at = now + max(1, SimDuration.seconds(after).ticks)
        try kernel.schedule(PushEvent.networkChange(slotID, generation: driver.generation(s)), at: SimTime(ticks: at))
    }

    /// A running session's device changes network: the new class is recorded, and every open
    /// fetch fails with a lost connection (PreloadKit decides what follows; new fetches use the
    /// new network). The event of an earlier session of the slot (`generation`) is ignored.
    mutating func onNetworkChange(_ slotID: SessionSlot, generation: UInt32, kernel: inout Kernel) throws {
        let s = slotID.index
        guard driver.generation(s) == generation, driver.isLive(s) else { return }
        let now = kernel.now.ticks
        let d = Int(driver.slot[s].device)
        let w = PushWord(driver.slot[s].push)
        let rng = population.stream(entity: UInt64(d) | UInt64(w.campaign) << 32 | UInt64(w.part) << 40 | UInt64(driver.slot[s].kind.rawValue) << 48,
                                    purpose: NetworkChanges.purposeChange)
        driver.slot[s].network = driver.networks.change(d, from: driver.slot[s].network, region: Int(driver.slot[s].region), now: now, rng)
        metrics.counters.sessionsNetworkChanged += 1
        var open = driver.slot[s].openFetches
        while open != 0 {
            let id = UInt32(open.trailingZeroBitCount)
            open &= open &- 1
            guard driver.generation(s) == generation, driver.isLive(s),
                  driver.slot[s].openFetches & (1 << UInt64(id)) != 0 else { continue }
            try driver.cancelTransfer(slotID, fetch: id, infra: &infra, metrics: &metrics, kernel: &kernel)
            driver.slot[s].openFetches &= ~(1 << UInt64(id))
            metrics.counters.fetchesNetworkChanged += 1
            try feed(slotID, .fetchFailed(FetchID(rawValue: id), .network), kernel: &kernel)
        }
    }
}
