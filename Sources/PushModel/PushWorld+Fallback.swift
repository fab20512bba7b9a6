import PreloadKit
import SimKernel

// Android's fallback (`PreloadPolicy.fallbackOnHandlerDeadline`): PreloadKit asks for a WorkManager
// job when the FCM handler's deadline comes with critical assets missing; the OS runs it
// expedited while the standby bucket's quota lasts, else as a regular job the bucket and Doze
// defer (`DeliveryRules.startJob`). WorkManager's network constraint holds throughout: the model's
// devices are never offline.
extension PushWorld {
    /// Slot `s`'s FCM session enqueued a fallback job (before its delivery): the push's outcome
    /// becomes the job's, and the job starts once the handler has ended (an event at the same
    /// instant when it may run now).
    mutating func onFallback(_ slotID: SessionSlot, kernel: inout Kernel) throws {
        let s = slotID.index
        let now = kernel.now.ticks
        driver.slot[s].fallbackEnqueued = true
        metrics.counters.fallbacksEnqueued += 1
        let d = DeviceID(rawValue: driver.slot[s].device)
        var w = PushWord(driver.slot[s].push)
        w.flags |= PushWord.flagFallback
        let a = population.device(d)
        let used = delivery.expeditedUsed[d.index]
        let decision = delivery.startJob(d, w, attributes: a, now: now, population: population, counters: &metrics.counters)
        if delivery.expeditedUsed[d.index] != used { metrics.counters.fallbacksExpedited += 1 }
        if case .handleNow(_, let job) = decision {
            return try act(.deferUntil(ticks: now, job), d, attributes: a, campaign: w.campaign, kernel: &kernel)
        }
        try act(decision, d, attributes: a, campaign: w.campaign, kernel: &kernel)
    }
}
