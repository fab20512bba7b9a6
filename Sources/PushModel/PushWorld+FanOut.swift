import SimKernel

// FCM topic fan-out (`sendAs: topic`, with `providers`): the campaign service sends one topic (or
// condition) message, which takes one message a part of the FCM project's quota, and FCM fans it
// out to the audience itself at `providers.fcm.fanOutPerSecond`. Firebase ("Throttling and
// quotas", fan-out throttling) divides a project's fan-out capacity among its fan-outs in
// progress, so each topic send in flight gets an equal share of the rate (two at once: each half),
// and every fan-out send takes its messages from one bucket refilled at that rate (one second
// deep, judgement), so the fan-outs together never exceed it whatever order their seconds run in.
// A campaign's topic send is one fan-out per pass over the audience (per wave with a calendar).
// Without a topic campaign `onSendBatch` never comes here.

/// What the fan-out counted (`provider.fcm.topicRequests`, `.fanOutMessages`, `.fanOutLastSendSeconds`).
struct FanOutTally: Sendable, Equatable {
    /// Topic messages FCM accepted from the sender (each part of a carousel is one).
    var topicRequests: UInt64 = 0
    /// Messages FCM's fan-out sent to devices (stale tokens included).
    var messages: UInt64 = 0
    /// The last fan-out send (its last carousel part), ticks; -1 before any.
    var lastSendTicks: Int64 = -1
}

/// The project's fan-out capacity and the topic sends sharing it. Arrays sized once.
struct FanOutPacer: Sendable {
    /// Whether any campaign is sent as a topic.
    var any = false
    /// Per campaign: sent as a topic.
    var isTopic: [Bool] = []
    /// Per campaign: its topic message was accepted and FCM is fanning it out.
    var fanningOut: [Bool] = []
    /// Fan-outs in progress.
    var active = 0
    /// The project's fan-out rate, messages a second.
    var perSecond: Double = 0
    /// The project's fan-out capacity: refilled at `perSecond`, one second deep (at least 16
    /// messages, a carousel's most parts).
    var bucket = ProviderBucket(ratePerMinute: 1, capacityMessages: 1)

    init() {}

    init(_ fcm: FCMProviderConfig, campaigns: [CampaignConfig]) {
        isTopic = campaigns.map { $0.sendAs == .topic }
        any = isTopic.contains(true)
        fanningOut = [Bool](repeating: false, count: campaigns.count)
        let rate = max(1, fcm.fanOutPerSecond)
        perSecond = Double(rate)
        bucket = ProviderBucket(ratePerMinute: rate * 60, capacityMessages: max(16, rate))
    }

    /// One fan-out's share of the rate now, messages a second.
    var share: Double { perSecond / Double(max(1, active)) }
}

extension PushWorld {
    /// One second of topic campaign `c`'s send. Before its fan-out starts, the sender's topic
    /// message goes through FCM's project bucket (a 429 or an outage retries it as a per-token
    /// send would be); then the next audience devices up to the campaign's share of the fan-out
    /// rate get their pushes through FCM, spaced evenly over the second, each taking its messages
    /// from the fan-out bucket (an empty bucket ends the second's pass).
    mutating func onFanOutBatch(_ c: Int, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let parts = rt[c].pushesPerDevice
        let fcm = ProviderState.fcm
        if !providers.fanOut.fanningOut[c] {
            if let retry = takeFromProvider(device: 0, campaign: c, provider: fcm, parts: parts, at: now, every: 0) {
                if retry < horizonTicks { try kernel.schedule(PushEvent.sendBatch(CampaignID(c)), at: SimTime(ticks: retry)) }
                return
            }
            providers.tally.fanOut.topicRequests += UInt64(parts)
            providers.fanOut.fanningOut[c] = true
            providers.fanOut.active += 1
            sendCredit[c] = 0
        }
        let rate = providers.fanOut.share
        sendCredit[c] += rate
        let n = population.deviceCount
        let share = rt[c].audienceShare
        let interval = SimDuration.seconds(config.campaigns[c].carouselIntervalSeconds ?? 0).ticks
        let calendar = calendars.campaigns[c] != nil
        let wave = sendWave[c]
        let cost = Double(parts)
        let latency = latencyByProvider[2 * c + fcm]
        var next = now + 1_000_000
        var k = 0.0
        var d = sendCursor[c]
        while d < n && sendCredit[c] >= cost {
            let member = calendar ? calendars.isMember(DeviceID(d), campaign: c, wave: wave, population: population)
                : population.inAudience(DeviceID(d), campaign: CampaignID(c), audienceShare: share)
            if member {
                let send = now + SimDuration.seconds(k / rate).ticks
                // The fan-outs together are at the project's rate: past it, this one waits a second.
                guard providers.fanOut.bucket.take(Int64(parts), at: send) else {
                    sendCredit[c] = 0
                    break
                }
                sendCredit[c] -= cost
                k += cost
                providers.tally.fanOut.messages += UInt64(parts)
                let last = send + Int64(parts - 1) * interval
                providers.tally.fanOut.lastSendTicks = max(providers.tally.fanOut.lastSendTicks, last)
                providers.tally.lastSendTicks = max(providers.tally.lastSendTicks, last)
                if providers.hasStaleTokens && providers.tokenIsStale(d, provider: fcm, population: population) {
                    sendUnregistered(device: d, campaign: c, provider: fcm, parts: parts, from: send, every: interval)
                } else {
                    let dataApi = !population.isIOS(DeviceID(d))
                    if dataApi { providers.tally.dataApi.accepted += UInt64(parts) }
                    try sendParts(device: d, campaign: c, parts: parts, from: send, every: interval, latency: latency, dataApi: dataApi,
                                  kernel: &kernel)
                }
            }
            d += 1
        }
        sendCursor[c] = d
        if d >= n {
            sendCredit[c] = 0
            providers.fanOut.fanningOut[c] = false
            providers.fanOut.active -= 1
            guard calendar, let start = nextWave(c, now: now) else { return }
            next = start
        }
        if next < horizonTicks {
            try kernel.schedule(PushEvent.sendBatch(CampaignID(c)), at: SimTime(ticks: next))
        }
    }
}
