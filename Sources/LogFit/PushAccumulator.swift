/// Streams `PushRecord`s into per-platform counts and reservoirs.
package struct PushAccumulator: Sendable {
    package static let reservoirCapacity = 20_000

    package struct PlatformState: Sendable {
        package var pushes = 0, delivered = 0, opened = 0
        /// Delivery delays (sent → delivered), seconds.
        package var delivery: Reservoir
        /// Delivered pushes: the tap delay when opened, else (censored) the delivery time, which
        /// becomes the censoring point `logEnd − delivered` once the log's end is known.
        package var taps: Reservoir
        /// Every push: sent → delivered, seconds (censored: never delivered), for shares within a window after the send.
        package var sendToDelivered: Reservoir
        /// Delivered pushes: sent → opened, seconds (censored: never opened).
        package var sendToOpened: Reservoir
        /// The same delivered pushes' sent → delivered, seconds: offered in step with `sendToOpened`
        /// under the same seed, so entry i of both is the same push.
        package var sendToDeliveredOfOpened: Reservoir
        /// Network class → pushes.
        package var networks: [String: Int] = [:]
    }

    package private(set) var platforms: [String: PlatformState] = [:]
    /// The latest time in the logs (the end of observation for unopened pushes).
    package private(set) var logEndSeconds = -Double.infinity
    package private(set) var firstSendSeconds = Double.infinity
    package private(set) var zeroDelays = 0

    package init() {}

    /// Adds `r` to its platform and to "all".
    package mutating func add(_ r: PushRecord) {
        add(r, to: r.platform)
        add(r, to: "all")
    }

    private mutating func add(_ r: PushRecord, to platform: String) {
        var p = platforms[platform] ?? PlatformState(delivery: Reservoir(capacity: Self.reservoirCapacity, seed: 31),
                                                       taps: Reservoir(capacity: Self.reservoirCapacity, seed: 32),
                                                       sendToDelivered: Reservoir(capacity: Self.reservoirCapacity, seed: 33),
                                                       sendToOpened: Reservoir(capacity: Self.reservoirCapacity, seed: 34),
                                                       sendToDeliveredOfOpened: Reservoir(capacity: Self.reservoirCapacity, seed: 34))
        p.pushes += 1
        firstSendSeconds = min(firstSendSeconds, r.sentSeconds)
        logEndSeconds = max(logEndSeconds, r.sentSeconds, r.deliveredSeconds ?? -.infinity, r.openedSeconds ?? -.infinity)
        if let n = r.network { p.networks[n, default: 0] += 1 }
        p.sendToDelivered.add(r.deliveredSeconds.map { $0 - r.sentSeconds } ?? 0, censored: r.deliveredSeconds == nil)
        if let d = r.deliveredSeconds {
            p.sendToOpened.add(r.openedSeconds.map { $0 - r.sentSeconds } ?? 0, censored: r.openedSeconds == nil)
            p.sendToDeliveredOfOpened.add(d - r.sentSeconds)
            p.delivered += 1
            let delay = d - r.sentSeconds
            if delay > 0 { p.delivery.add(delay) } else if platform == "all" { zeroDelays += 1 }
            if let o = r.openedSeconds {
                p.opened += 1
                if o - d > 0 { p.taps.add(o - d) } else if platform == "all" { zeroDelays += 1 }
            } else {
                p.taps.add(d, censored: true)
            }
        }
        platforms[platform] = p
    }
}
