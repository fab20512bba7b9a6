import Foundation
import InfraModel
import PreloadKit
import SimKernel
import SimStats
import Stochastic

// Session endings, OS deadlines, users (taps, foreground fetches, paint) and accounting.
extension PushWorld {
    // MARK: - Session endings

    /// PreloadKit delivered the notification: classify the push (exactly once) and let the user see it.
    mutating func onDelivered(_ s: Int, _ delivery: Delivery, kernel: inout Kernel) throws {
        let w = PushWord(slot[s].push)
        let d = Int(slot[s].device)
        let complete = delivery.selectedAssets > 0 && delivery.readyAssets == delivery.selectedAssets
        if w.flags & PushWord.flagDeferred != 0 {
            if complete && (delivery.reason == .assetsSettled || delivery.reason == .nothingToFetch) {
                outcomes.deferredThenCompleted += 1
            } else {
                outcomes.deferredThenExpired += 1
            }
        } else {
            switch delivery.reason {
            case .hardDeadline, .osExpiry: outcomes.timedOutOrKilled += 1
            case .assetsSettled: if complete { outcomes.completed += 1 } else { outcomes.partial += 1 }
            case .nothingToFetch: if complete { outcomes.completed += 1 } else { outcomes.skippedByPolicy += 1 }
            }
        }
        let shown = showsNotification(w) && slot[s].kind != .androidWorkManagerJob  // a job's was shown by its handler
        if slot[s].highPriority { noteHighPriority(d, shown: shown) }
        if shown { try scheduleTap(d, w, opens: slot[s].opens, tapDelaySeconds: slot[s].tapDelaySeconds, shownAt: kernel.now.ticks, kernel: &kernel) }
    }

    /// The OS ends slot `s`'s handler now. Not yet delivered: the push timed out / was killed; an
    /// iOS extension's notification is still shown with its original content.
    mutating func kill(_ s: Int, kernel: inout Kernel) throws {
        if !sessions[s].delivered() {
            let w = PushWord(slot[s].push)
            let d = Int(slot[s].device)
            if w.flags & PushWord.flagDeferred != 0 { outcomes.deferredThenExpired += 1 } else { outcomes.timedOutOrKilled += 1 }
            let shown = slot[s].kind == .iOSServiceExtension && showsNotification(w)
            if slot[s].highPriority { noteHighPriority(d, shown: shown) }
            let opens = slot[s].opens, tapDelaySeconds = slot[s].tapDelaySeconds
            try endSession(s, kernel: &kernel)
            if shown { try scheduleTap(d, w, opens: opens, tapDelaySeconds: tapDelaySeconds, shownAt: kernel.now.ticks, kernel: &kernel) }
            return
        }
        try endSession(s, kernel: &kernel)
    }

    /// Returns the session's store to its device and frees the slot. Fetches still open (the OS
    /// ended the handler) are cancelled in InfraModel, their transfers stopping now, and count
    /// as cancelled.
    mutating func endSession(_ s: Int, kernel: inout Kernel) throws {
        var open = slot[s].openFetches
        while open != 0 {
            let id = UInt32(open.trailingZeroBitCount)
            open &= open &- 1
            try cancelTransfer(s, fetch: id, kernel: &kernel)
            counters.fetchesCancelled += 1
        }
        slot[s].openFetches = 0
        if let h = slot[s].timer { kernel.cancel(h) }
        if let h = slot[s].warn { kernel.cancel(h) }
        if let h = slot[s].kill { kernel.cancel(h) }
        slot[s].timer = nil
        slot[s].warn = nil
        slot[s].kill = nil
        let d = Int(slot[s].device)
        let store = sessions[s].currentStore()
        sessions[s].reset(store: noStore)  // keeps the buffers for the slot's next session
        parked.park(d, store, plans: plans)
        deviceSlot[d] = -1
        if slot[s].tap >= 0 {
            tSlot[Int(slot[s].tap)] = -1
            slot[s].tap = -1
        }
        slot[s].generation &+= 1
        slotFree.append(Int32(s))
        activeSessions -= 1
    }

    mutating func onSessionTimer(_ event: Event, kernel: inout Kernel) throws {
        let s = Int(event.target)
        guard UInt64(slot[s].generation) == event.payload, deviceSlot[Int(slot[s].device)] == Int32(s) else { return }
        slot[s].timer = nil
        slot[s].timerAt = .max
        try feed(s, .timerFired, kernel: &kernel)
    }

    mutating func onOSDeadline(_ event: Event, kernel: inout Kernel) throws {
        let s = Int(event.target)
        guard UInt64(slot[s].generation) == event.payload >> 8, deviceSlot[Int(slot[s].device)] == Int32(s) else { return }
        if event.payload & 0xFF == 0 {
            slot[s].warn = nil
            counters.expiryWarnings += 1
            try feed(s, .expiryWarning, kernel: &kernel)
        } else {
            slot[s].kill = nil
            counters.killedByTime += 1
            try kill(s, kernel: &kernel)
        }
    }

    // MARK: - Users

    /// The notification of push `w` is shown at `shownAt`: if the user opens it, the tap comes
    /// after the user's tap delay (held in a far-future bucket).
    mutating func scheduleTap(_ d: Int, _ w: PushWord, attributes a: DeviceAttributes, shownAt: Int64, kernel: inout Kernel) throws {
        let u = population.user(d, campaign: w.campaign, audienceShare: 1, isIOS: a.isIOS, segment: a.segment)
        try scheduleTap(d, w, opens: u.opens, tapDelaySeconds: u.tapDelaySeconds, shownAt: shownAt, kernel: &kernel)
    }

    /// `scheduleTap(_:_:attributes:shownAt:kernel:)` with the user draws already made (a session
    /// slot keeps them from `deliver`, which saves drawing the device and the user again).
    mutating func scheduleTap(_ d: Int, _ w: PushWord, opens: Bool, tapDelaySeconds: Double, shownAt: Int64, kernel: inout Kernel) throws {
        guard opens else { return }
        let at = shownAt + SimDuration.seconds(tapDelaySeconds).ticks
        if at >= horizonTicks {
            counters.tapsBeyondHorizon += 1
            return
        }
        counters.tapsScheduled += 1
        try far.schedule(at: at, kind: PushKind.tap, target: UInt32(d),
                         payload: UInt64(w.campaign) << 48 | (UInt64(w.sendTicks) & PushWord.sendMask), kernel: &kernel)
    }

    mutating func allocateTap() -> Int {
        if let t = tapFree.popLast() { return Int(t) }
        tDevice.append(0); tCampaign.append(0); tStart.append(0); tPending.append(0); tGen.append(0)
        tNetwork.append(.wifi); tIOS.append(false); tRegion.append(0); tSaveData.append(false); tFailed.append(false)
        tSlot.append(-1); tSend.append(0)
        return tDevice.count - 1
    }

    mutating func freeTap(_ t: Int) {
        if tSlot[t] >= 0 {
            slot[Int(tSlot[t])].tap = -1
            tSlot[t] = -1
        }
        tGen[t] &+= 1
        tapFree.append(Int32(t))
    }

    /// The user taps campaign `c`'s notification: paint at once if PreloadKit's store (or the
    /// running session) has every critical asset, else fetch what is missing in the foreground.
    mutating func onTap(_ event: Event, kernel: inout Kernel) throws {
        let now = kernel.now.ticks
        let d = Int(event.target)
        let c = Int(event.payload >> 48)
        series.taps.add(atMicroseconds: now)
        let a = population.device(d)
        let t = allocateTap()
        tDevice[t] = UInt32(d)
        tCampaign[t] = c
        tStart[t] = now
        tNetwork[t] = a.network
        tIOS[t] = a.isIOS
        tRegion[t] = a.region
        tSaveData[t] = a.saveData
        tFailed[t] = false
        tSend[t] = Int64(event.payload & PushWord.sendMask)
        let n = plans.criticalCount[c]
        tPending[t] = n >= 32 ? UInt32.max : (UInt32(1) << UInt32(n)) - 1
        let base = Int(PushWorld.preloadNetwork(a.network).rawValue) * n
        let s = Int(deviceSlot[d])
        let now64 = Instant(microseconds: now)
        if s >= 0 && PushWord(slot[s].push).campaign == c {
            // The handler is still running: the tap sees its partial state (PreloadKit answers, and
            // reports assets that become ready later with `.paintReady`).
            counters.tapsDuringSession += 1
            slot[s].tap = Int32(t)
            tSlot[t] = Int32(s)
            try feed(s, .userTapped, kernel: &kernel)
            if deviceSlot[d] == Int32(s) {
                for i in 0..<n where tPending[t] & (1 << UInt32(i)) != 0
                    && sessions[s].storeFreshness(of: plans.criticalKeys[c][base + i], at: now64) != .missing {
                    tPending[t] &= ~(1 << UInt32(i))
                }
            }
        } else if s >= 0 {
            // A handler for another campaign holds the device's store: look, without touching.
            for i in 0..<n where sessions[s].storeFreshness(of: plans.criticalKeys[c][base + i], at: now64) != .missing {
                tPending[t] &= ~(1 << UInt32(i))
            }
        } else if parked.hasStore(d) {
            var store = parked.unpark(d, plans: plans, reserving: 0)
            for i in 0..<n {
                let key = plans.criticalKeys[c][base + i]
                if store.freshness(of: key, at: now64) != .missing {
                    store.touch(key, at: now64)
                    tPending[t] &= ~(1 << UInt32(i))
                }
            }
            parked.park(d, store, plans: plans)
        }
        if tPending[t] == 0 {
            counters.tapsInstant += 1
            return try schedulePaint(t, kernel: &kernel)
        }
        let lifetime = rt[c].tokenLifetimeTicks
        if now - tSend[t] > lifetime {
            // The signed URLs in the push have expired: one round trip to refresh them first.
            counters.tokenRefreshes += 1
            try foregroundFetch(t, object: plans.tokenObject[c], index: 255, kernel: &kernel)
        } else {
            try fetchMissing(t, kernel: &kernel)
        }
    }

    /// Issues one foreground fetch per missing critical asset (in parallel).
    mutating func fetchMissing(_ t: Int, kernel: inout Kernel) throws {
        let c = tCampaign[t]
        let n = plans.criticalCount[c]
        let base = Int(PushWorld.preloadNetwork(tNetwork[t]).rawValue) * n
        for i in 0..<n where tPending[t] & (1 << UInt32(i)) != 0 {
            try foregroundFetch(t, object: plans.criticalObjects[c][base + i], index: i, kernel: &kernel)
        }
    }

    mutating func foregroundFetch(_ t: Int, object: UInt32, index: Int, kernel: inout Kernel) throws {
        let d = Int(tDevice[t])
        let c = tCampaign[t]
        let entity = UInt64(d) << 24 | UInt64(c) << 16 | UInt64(0x80 | (index & 0x7F)) << 8 | UInt64(index & 0xFF)
        let request = InfraFetchRequest(objectID: object, regionID: tRegion[t], networkClass: tNetwork[t], entity: entity,
                                        connectionWarm: rules.foregroundWarm, saveData: tSaveData[t],
                                        signedToken: PushWorld.token(d, c),
                                        timeout: rules.foregroundTimeout, replyKind: PushKind.foregroundReply,
                                        replyTarget: UInt32(t), replyTag: (tGen[t] & 0xFF_FFFF) << 8 | UInt32(index & 0xFF))
        let requestID = try infra.fetch(request, kernel: &kernel)
        noteRequest(requestID, region: tRegion[t], cellular: tNetwork[t] != .wifi, neverOpened: false)
    }

    mutating func onForegroundReply(_ event: Event, kernel: inout Kernel) throws {
        let (tag, requestID) = InfraWorld.decodeReply(event.payload)
        let result = infra.result(requestID)
        infra.release(requestID)
        let t = Int(event.target)
        if result.bytes > 0 {
            bytes.foregroundBytes += UInt64(result.bytes)
            if reqFlags[Int(requestID)] & PushWorld.requestCellular != 0 { bytes.cellularBytes += UInt64(result.bytes) }
        }
        guard tGen[t] & 0xFF_FFFF == tag >> 8 else { return }
        let ok: Bool
        switch result.outcome {
        case .edgeFreshHit, .edgeStaleHit, .miss, .collapsed, .staleIfError, .placeholder: ok = true
        case .origin503, .timeout, .networkFailure, .cancelled: ok = false // (foreground fetches are never cancelled)
        }
        let index = Int(tag & 0xFF)
        if index == 255 {
            if ok { return try fetchMissing(t, kernel: &kernel) }
            counters.paintsFailed += 1
            return freeTap(t)
        }
        guard tPending[t] & (1 << UInt32(index)) != 0 else { return }
        tPending[t] &= ~(1 << UInt32(index))
        if !ok { tFailed[t] = true }
        if tPending[t] == 0 { try finishTap(t, kernel: &kernel) }
    }

    /// PreloadKit answered the tap (running session): assets it reports fresh or stale are ready.
    mutating func applyTapAnswer(_ t: Int, _ answer: TapAnswer) {
        let c = tCampaign[t]
        let n = plans.criticalCount[c]
        let base = Int(PushWorld.preloadNetwork(tNetwork[t]).rawValue) * n
        for r in answer.assets where r.freshness != .missing {
            for i in 0..<n where plans.criticalKeys[c][base + i] == r.key { tPending[t] &= ~(1 << UInt32(i)) }
        }
    }

    /// After the tap, the running session stored a missing asset (`.paintReady`).
    mutating func assetReady(_ t: Int, key: StoreKey, kernel: inout Kernel) throws {
        let c = tCampaign[t]
        let n = plans.criticalCount[c]
        let base = Int(PushWorld.preloadNetwork(tNetwork[t]).rawValue) * n
        var changed = false
        for i in 0..<n where plans.criticalKeys[c][base + i] == key && tPending[t] & (1 << UInt32(i)) != 0 {
            tPending[t] &= ~(1 << UInt32(i))
            changed = true
        }
        if changed && tPending[t] == 0 { try finishTap(t, kernel: &kernel) }
    }

    mutating func finishTap(_ t: Int, kernel: inout Kernel) throws {
        if tFailed[t] {
            counters.paintsFailed += 1
            return freeTap(t)
        }
        try schedulePaint(t, kernel: &kernel)
    }

    mutating func schedulePaint(_ t: Int, kernel: inout Kernel) throws {
        if tSlot[t] >= 0 {
            slot[Int(tSlot[t])].tap = -1
            tSlot[t] = -1
        }
        let render = population.renderSeconds(Int(tDevice[t]), campaign: tCampaign[t])
        try kernel.schedule(after: .seconds(render), kind: PushKind.paint, target: UInt32(t), payload: UInt64(tGen[t]))
    }

    mutating func onPaint(_ event: Event, kernel: Kernel) {
        let t = Int(event.target)
        guard UInt64(tGen[t]) == event.payload else { return }
        let now = kernel.now.ticks
        let latency = now - tStart[t]
        tapToPaint.record(latency)
        groupHistograms[(tIOS[t] ? 0 : InfraNetworkClass.count) + Int(tNetwork[t].rawValue)].record(latency)
        series.paints.add(atMicroseconds: now)
        freeTap(t)
    }

    // MARK: - Accounting

    /// Counts a pre-stage request's edge outcome (per PoP, per second, misses by region and time).
    mutating func recordPrestage(_ r: FetchResult, region: Int) {
        switch r.outcome {
        case .edgeFreshHit, .edgeStaleHit, .placeholder:
            counters.prestageRequests += 1
            counters.prestageHits += 1
            popRequests[Int(r.popIndex)] += 1
            popHits[Int(r.popIndex)] += 1
            series.prestageEdgeRequests.add(atMicroseconds: r.startTime.ticks)
            series.prestageEdgeHits.add(atMicroseconds: r.startTime.ticks)
        case .miss, .collapsed, .origin503, .staleIfError:
            counters.prestageRequests += 1
            counters.prestageMisses += 1
            popRequests[Int(r.popIndex)] += 1
            series.prestageEdgeRequests.add(atMicroseconds: r.startTime.ticks)
            let bin = Int(max(0, r.startTime.ticks - firstSendTicks) / (Int64(missBinSeconds) * 1_000_000))
            regionMisses[region * missBins + min(bin, missBins - 1)] += 1
        case .timeout, .networkFailure, .cancelled:
            counters.prestageNoEdge += 1
        }
    }
}
