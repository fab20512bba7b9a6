import InfraModel
import PreloadKit
import SimKernel

// The router's side of the owners' answers: OS decisions, session starts and endings, PreloadKit
// actions, and the tap path across the session driver and the tap tracker.
extension PushWorld {
    // MARK: - OS decisions

    /// Carries out `DeliveryRules`' decision for device `d` (attributes `a`) now.
    mutating func act(_ decision: DeliveryDecision, _ d: DeviceID, attributes a: DeviceAttributes, campaign c: Int, kernel: inout Kernel) throws {
        switch decision {
        case .handleNow(let kind, let w):
            try deliver(d, w, kind: kind, attributes: a, kernel: &kernel)
        case .runMessageHandler(let w):
            try runMessageHandler(d, w, attributes: a, kernel: &kernel)
        case .holdUntil(let at, let w):
            metrics.notePushDeferred(campaign: w.campaign, entering: true)
            try far.schedule(at: at, .silentRelease(d, w), kernel: &kernel)
        case .deferUntil(let at, let w):
            metrics.notePushDeferred(campaign: w.campaign, entering: true)
            try far.schedule(at: at, .deferredStart(d, w), kernel: &kernel)
        case .drop(.notDelivered):
            metrics.countOutcome(.notDelivered, campaign: c)
        case .drop(.expired), .drop(.pastHorizon):
            metrics.countOutcome(.deferredThenExpired, campaign: c)
        }
    }

    /// Android: the message handler runs push `w` now: it pre-stages itself, or posts the
    /// notification (the user may tap at once) and hands pre-staging to a WorkManager job.
    mutating func runMessageHandler(_ d: DeviceID, _ w: PushWord, attributes a: DeviceAttributes, kernel: inout Kernel) throws {
        if let kind = delivery.messageHandlerKind(w) {
            return try deliver(d, w, kind: kind, attributes: a, kernel: &kernel)
        }
        let shown = delivery.showsNotification(w)
        if w.flags & PushWord.flagHighPriority != 0 { delivery.noteHighPriority(d, shown: shown) }
        if shown { try scheduleTap(d, w, attributes: a, shownAt: kernel.now.ticks, kernel: &kernel) }
        let job = delivery.startJob(d, w, attributes: a, now: kernel.now.ticks, population: population, counters: &metrics.counters)
        try act(job, d, attributes: a, campaign: w.campaign, kernel: &kernel)
    }

    // MARK: - Sessions

    /// The push reaches a handler of `kind` now: start a PreloadKit session (or, for a push without
    /// a pre-stage manifest, show the notification).
    mutating func deliver(_ d: DeviceID, _ w: PushWord, kind: HandlerKind, attributes a: DeviceAttributes, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        metrics.noteDelivery(campaign: w.campaign, now: now)
        let expired = rt[w.campaign].preStage
            && !plans.payloadUsable(campaign: w.campaign, part: w.part, wave: calendars.wave(of: d, campaign: w.campaign, population: population), now: now)
        if !rt[w.campaign].preStage || expired {
            // No manifest, or one past its signed expiry (PreloadKit refuses it: nothing is
            // fetched); the notification is shown as sent.
            metrics.countOutcome(expired ? .payloadExpired : .skippedByPolicy, campaign: w.campaign)
            notePushReached(d, w, attributes: a, opens: nil)
            if w.flags & PushWord.flagHighPriority != 0 { delivery.noteHighPriority(d, shown: true) }
            // A WorkManager job's notification was shown (and may be tapped) by its message handler.
            if delivery.showsNotification(w) && kind != .androidWorkManagerJob { try scheduleTap(d, w, attributes: a, shownAt: now, kernel: &kernel) }
            return
        }
        if let running = driver.runningSlot(d) {
            // One handler per device at a time: a still-running session for an earlier push ends
            // (the OS replaces the extension / job for the new push).
            metrics.counters.sessionsReplaced += 1
            try kill(running, kernel: &kernel)
        }
        let user = population.user(d, campaign: w.campaignID, audienceShare: 1, isIOS: a.isIOS, segment: a.segment)
        notePushReached(d, w, attributes: a, opens: user.opens)
        metrics.counters.sessionsStarted += 1
        let started = try driver.start(device: d, push: w, kind: kind, attributes: networkNow(d, a, now: now, tap: false), user: user,
                                       now: now, kernel: &kernel)
        try feed(started.slot, started.input, kernel: &kernel)
        try armNetworkChange(started.slot, kernel: &kernel)
    }

    /// Feeds one input to slot `s`'s session at the kernel's now, performs every action, then
    /// re-arms the timer or ends the session.
    mutating func feed(_ slotID: SessionSlot, _ input: consuming Input, kernel: inout Kernel) throws {
        let s = slotID.index
        let now = kernel.now.ticks
        try driver.handle(slotID, consume input, now: now)
        try drain(slotID, kernel: &kernel)
        if !driver.isLive(s) { return } // killed while draining
        switch try driver.settle(slotID, now: now, kernel: &kernel) {
        case .running: break
        case .finished: try endSession(slotID, kernel: &kernel)
        case .overMemory:
            metrics.counters.killedByMemory += 1
            try kill(slotID, kernel: &kernel)
        }
    }

    /// Performs the session's actions.
    mutating func drain(_ slotID: SessionSlot, kernel: inout Kernel) throws {
        let s = slotID.index
        while let action = driver.sessions[s].pollAction() {
            // Consumed: a payload is moved out, not copied and released twice.
            switch consume action {
            case .startFetch(let r):
                try driver.startFetch(slotID, r, infra: &infra, metrics: &metrics, kernel: &kernel)
            case .cancelFetch(let id, let reason):
                try driver.cancelFetch(slotID, id, reason: reason, infra: &infra, metrics: &metrics, kernel: &kernel)
            case .storeAsset(let commit):
                metrics.countStored(notModified: commit.notModified)
                if metrics.hls != nil, !commit.notModified, let o = plans.object(for: commit.entry.key), let part = plans.hlsPart(o) {
                    metrics.hls?.noteStored(part)
                }
            case .evict(_, .space):
                metrics.bytes.evictedForSpace += 1
            case .evict(_, .expired):
                metrics.bytes.expiredRemoved += 1
            case .deliver(let delivery):
                try onDelivered(slotID, delivery, kernel: &kernel)
            case .tapAnswer(let answer):
                if let t = driver.slot[s].answering { taps.apply(t, answer) }
            case .paintReady(let key):
                if let t = driver.slot[s].answering, taps.assetReady(t, key: key) { try finishTap(t, kernel: &kernel) }
            case .scheduleReceipt(let receipt):
                metrics.analytics?.receive(receipt)
            case .log:
                break
            case .enqueueFallback:
                try onFallback(slotID, kernel: &kernel)
            }
        }
    }

    /// PreloadKit delivered the notification: classify the push (exactly once) and let the user see it.
    mutating func onDelivered(_ slotID: SessionSlot, _ delivery: Delivery, kernel: inout Kernel) throws {
        let s = slotID.index
        let w = PushWord(driver.slot[s].push)
        let d = DeviceID(rawValue: driver.slot[s].device)
        let complete = delivery.selectedAssets > 0 && delivery.readyAssets == delivery.selectedAssets
        if w.flags & PushWord.flagFallback != 0 && complete { metrics.counters.fallbacksCompleted += 1 }
        if driver.slot[s].fallbackEnqueued {
            // The push's outcome is its fallback job's.
        } else if w.flags & PushWord.flagDeferred != 0 {
            if complete && (delivery.reason == .assetsSettled || delivery.reason == .nothingToFetch) {
                metrics.countOutcome(.deferredThenCompleted, campaign: w.campaign)
            } else {
                metrics.countOutcome(.deferredThenExpired, campaign: w.campaign)
            }
        } else {
            switch delivery.reason {
            case .hardDeadline, .osExpiry: metrics.countOutcome(.timedOutOrKilled, campaign: w.campaign)
            case .assetsSettled:
                if complete {
                    metrics.countOutcome(.completed, campaign: w.campaign)
                } else if delivery.readyAssets > 0 {
                    metrics.countOutcome(.partial, campaign: w.campaign)
                } else if driver.slot[s].fetchTimedOut {
                    metrics.countOutcome(.fetchTimedOut, campaign: w.campaign)
                } else {
                    metrics.countOutcome(.fetchFailed, campaign: w.campaign)
                }
            case .nothingToFetch: metrics.countOutcome(complete ? .completed : .skippedByPolicy, campaign: w.campaign)
            }
        }
        let shown = self.delivery.showsNotification(w) && driver.slot[s].kind != .androidWorkManagerJob  // a job's was shown by its handler
        if driver.slot[s].highPriority { self.delivery.noteHighPriority(d, shown: shown) }
        if shown {
            try taps.schedule(d, w, opens: driver.slot[s].opens, tapDelaySeconds: driver.slot[s].tapDelaySeconds, shownAt: kernel.now.ticks,
                              far: &far, counters: &metrics.counters, kernel: &kernel)
        }
    }

    /// The OS ends slot `s`'s handler now. Not yet delivered: the push timed out / was killed; an
    /// iOS extension's notification is still shown with its original content.
    mutating func kill(_ slotID: SessionSlot, kernel: inout Kernel) throws {
        let s = slotID.index
        if !driver.sessions[s].delivered() {
            let w = PushWord(driver.slot[s].push)
            let d = DeviceID(rawValue: driver.slot[s].device)
            metrics.countOutcome(w.flags & PushWord.flagDeferred != 0 ? .deferredThenExpired : .timedOutOrKilled, campaign: w.campaign)
            let shown = driver.slot[s].kind == .iOSServiceExtension && delivery.showsNotification(w)
            if driver.slot[s].highPriority { delivery.noteHighPriority(d, shown: shown) }
            let opens = driver.slot[s].opens, tapDelaySeconds = driver.slot[s].tapDelaySeconds
            try endSession(slotID, kernel: &kernel)
            if shown {
                try taps.schedule(d, w, opens: opens, tapDelaySeconds: tapDelaySeconds, shownAt: kernel.now.ticks,
                                  far: &far, counters: &metrics.counters, kernel: &kernel)
            }
            return
        }
        try endSession(slotID, kernel: &kernel)
    }

    /// Ends slot `slotID`'s session (the device's store is parked) and detaches the tap it answered.
    mutating func endSession(_ slotID: SessionSlot, kernel: inout Kernel) throws {
        if let t = try driver.end(slotID, infra: &infra, metrics: &metrics, kernel: &kernel) { taps.tSlot[t.index] = -1 }
    }

    // MARK: - Users

    /// The notification of push `w` is shown at `shownAt` on device `d` (attributes `a`): the
    /// user's draws decide whether and when it is tapped.
    mutating func scheduleTap(_ d: DeviceID, _ w: PushWord, attributes a: DeviceAttributes, shownAt: Int64, kernel: inout Kernel) throws {
        let u = population.user(d, campaign: w.campaignID, audienceShare: 1, isIOS: a.isIOS, segment: a.segment)
        try taps.schedule(d, w, opens: u.opens, tapDelaySeconds: u.tapDelaySeconds, shownAt: shownAt,
                          far: &far, counters: &metrics.counters, kernel: &kernel)
    }

    /// The user of device `d` taps campaign `c`'s notification of the push sent at `sendTicks`:
    /// paint at once if PreloadKit's store (or the running session) has every critical asset,
    /// else fetch what is missing in the foreground.
    mutating func onTap(_ d: DeviceID, campaign c: CampaignID, sendTicks: Int64, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        metrics.noteTap(campaign: c.index, now: now)
        let a = networkNow(d, population.device(d), now: now, tap: true)
        let tap = taps.begin(device: d, campaign: c, attributes: a, now: now, sendTicks: sendTicks,
                           staleStored: driver.hasStaleCreative(d, campaign: c))
        let t = tap.index
        let running = driver.runningSlot(d)
        let s = running.map(\.index) ?? -1
        let now64 = Instant(microseconds: now)
        if let running, PushWord(driver.slot[s].push).campaign == c.index {
            // The handler is still running: the tap sees its partial state (PreloadKit answers, and
            // reports assets that become ready later with `.paintReady`).
            metrics.counters.tapsDuringSession += 1
            driver.slot[s].tap = Int32(t)
            taps.tSlot[t] = Int32(s)
            try feed(running, .userTapped, kernel: &kernel)
            if driver.deviceSlot[d.index] == Int32(s) { taps.markStored(tap, in: &driver.sessions[s], now: now64) }
        } else if s >= 0 {
            // A handler for another campaign holds the device's store: look, without touching.
            taps.markStored(tap, in: &driver.sessions[s], now: now64)
        } else if driver.parked.hasStore(d) {
            var store = driver.parked.unpark(d, plans: plans, reserving: 0)
            taps.markStored(tap, touching: &store, now: now64)
            driver.parked.park(d, consume store, plans: plans)
        }
        if taps.tPending[t] == 0 {
            metrics.noteInstantTap(campaign: c.index)
            return try taps.schedulePaint(tap, driver: &driver, population: population, kernel: &kernel)
        }
        try fetchForTap(tap, kernel: &kernel)
    }

    /// InfraWorld's `reply` to a foreground fetch of tap slot `tap`: the tap's next step.
    mutating func onForegroundReply(_ tap: TapID, _ reply: UInt64, kernel: inout Kernel) throws {
        let (t, step) = taps.reply(tap, reply, now: kernel.now.ticks, driver: &driver, infra: &infra, metrics: &metrics)
        switch step {
        case .wait: break
        case .fetchMissing: try taps.fetchMissing(t, infra: &infra, metrics: &metrics, kernel: &kernel)
        case .manifestFetched: try onTapManifest(t, kernel: &kernel)
        case .paint: try taps.schedulePaint(t, driver: &driver, population: population, kernel: &kernel)
        case .fail: failTap(t)
        }
    }

    /// Tap `t` cannot paint: its user leaves without the article (abandoned, not read).
    mutating func failTap(_ t: TapID) {
        metrics.counters.paintsFailed += 1
        metrics.noteAbandoned(campaign: Int(taps.tCampaign[t.index]))
        taps.free(t, driver: &driver)
    }

    /// Every asset of tap `t`'s paint set is there: paint, unless one failed.
    mutating func finishTap(_ t: TapID, kernel: inout Kernel) throws {
        if taps.tFailed[t.index] { return failTap(t) }
        try taps.schedulePaint(t, driver: &driver, population: population, kernel: &kernel)
    }

    /// First paint of tap slot `tap`'s tap of `generation` (a later tap's slot ignores it).
    mutating func onPaint(_ tap: TapID, generation: UInt32, kernel: Kernel) {
        let t = tap.index
        guard taps.generation(t) == generation else { return }
        let now = kernel.now.ticks
        let latency = now - taps.tStart[t]
        metrics.recordPaint(latency: latency, isIOS: taps.tIOS[t], network: taps.tNetwork[t], now: now, campaign: Int(taps.tCampaign[t]))
        if taps.tStale[t] { metrics.counters.staleTaps += 1 }
        if taps.tPlaceholder[t] { metrics.counters.placeholderTaps += 1 }
        // Tap-to-paint counts every painted tap, abandoned or not: the paint time is what the
        // app achieved; the user's leaving is counted beside it.
        let user = taps.patience.painted(device: DeviceID(rawValue: taps.tDevice[t]), campaign: CampaignID(taps.tCampaign[t]), waitTicks: latency, population: population)
        if user.abandoned { metrics.noteAbandoned(campaign: Int(taps.tCampaign[t])) }
        if user.read { metrics.noteRead(campaign: Int(taps.tCampaign[t])) }
        taps.free(tap, driver: &driver)
    }
}
