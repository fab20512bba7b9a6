import Foundation
import PushModel
import ScenarioFormat

/// What a run's memory estimate is computed from. Every count is per replication unless named
/// otherwise.
package struct MemoryInputs: Sendable, Equatable, Codable {
    /// Devices in the population.
    var devices: Int
    /// Pushes targeted over the run (all campaigns, carousel pushes counted).
    var pushesTargeted: Int
    /// Most pre-stage sessions (handlers, foreground fetches) alive at once.
    var activeSessionsPeak: Int
    /// Seconds covered by the per-second time series.
    var horizonSeconds: Int
    /// Replications run.
    var replications: Int
    /// Replications simulated at the same time (threads).
    var concurrentReplications: Int
    /// True when the radio energy model is on (`energy.enabled`): every device holds its radio
    /// state. nil when off (so a run-info.json without the model reads as before).
    var radioEnergy: Bool?
    /// True when the decision kind is `budgeted` (`preloadPolicy.decision.kind`): every device
    /// holds its ledger. nil otherwise.
    var budgetedLedgers: Bool?
    /// Campaigns counted one by one (two or more: the per-campaign results); nil with one.
    var campaignTallies: Int?
    /// True with offline windows in the provider layer (`providers.offline`): every device holds
    /// its offline store slot. nil otherwise.
    var offlineStores: Bool?
    /// True when the offline stores keep collapsible messages by collapse key (more than one key,
    /// `PushWorldConfig.collapseKeySlotsKept`): every device holds four message ids. nil otherwise.
    var collapseKeySlots: Bool?
    /// True when Doze holds of collapsible FCM messages are tracked (`PushWorldConfig.dozeCollapseKept`):
    /// every device holds one message word. nil otherwise.
    var dozeCollapse: Bool?
    /// Bytes a device of FCM's per-device limit state (`PushWorldConfig.deviceCapsBytesPerDevice`:
    /// 24 for the rate windows, 8 for the collapsible burst) when the plan keeps it; nil otherwise.
    var deviceCapsBytesPerDevice: Int?

    /// Inputs; see the properties.
    package init(devices: Int, pushesTargeted: Int, activeSessionsPeak: Int, horizonSeconds: Int,
                replications: Int, concurrentReplications: Int, radioEnergy: Bool = false, budgetedLedgers: Bool = false,
                campaigns: Int = 1, offlineStores: Bool = false, deviceCapsBytesPerDevice: Int = 0, collapseKeySlots: Bool = false,
                dozeCollapse: Bool = false) {
        self.devices = devices
        self.pushesTargeted = pushesTargeted
        self.activeSessionsPeak = activeSessionsPeak
        self.horizonSeconds = horizonSeconds
        self.replications = replications
        self.concurrentReplications = concurrentReplications
        self.radioEnergy = radioEnergy ? true : nil
        self.budgetedLedgers = budgetedLedgers ? true : nil
        self.campaignTallies = campaigns >= 2 ? campaigns : nil
        self.offlineStores = offlineStores ? true : nil
        self.collapseKeySlots = collapseKeySlots ? true : nil
        self.dozeCollapse = dozeCollapse ? true : nil
        self.deviceCapsBytesPerDevice = deviceCapsBytesPerDevice > 0 ? deviceCapsBytesPerDevice : nil
    }
}

/// An estimate of the peak resident memory of `prestage run`, by part.
///
/// Model: `processBase + concurrent × (devices × perDevice + sessions × perSession +
/// events × perEvent + histograms + seriesInFlight) + replications × resultBytes`, plus
/// `concurrent × devices × bytes` for each per-device model the scenario turns on (the radio
/// energy state, the `budgeted` ledgers).
/// The constants are in `MemoryModel`; `run-info.json` records the estimate next to the measured
/// peak resident size of every run, so the constants can be re-checked.
package struct MemoryEstimate: Sendable, Equatable, Codable {
    /// One term of the estimate.
    struct Part: Sendable, Equatable, Codable {
        /// What the bytes are for ("devices", "active sessions", ...).
        var name: String
        /// Its bytes in total (already multiplied by the concurrent replications where that applies).
        var bytes: UInt64
    }

    /// The terms, in a fixed order.
    var parts: [Part]
    /// Their sum.
    package var totalBytes: UInt64 { parts.reduce(0) { $0 &+ $1.bytes } }

    /// The estimate for `inputs` under `model`.
    /// - Complexity: O(1).
    package init(_ inputs: MemoryInputs, model: MemoryModel = MemoryModel()) {
        let concurrent = UInt64(max(1, min(inputs.concurrentReplications, inputs.replications)))
        func times(_ count: Int, _ each: UInt64) -> UInt64 {
            let (product, overflow) = UInt64(max(0, count)).multipliedReportingOverflow(by: each)
            return overflow ? .max / 16 : product
        }
        let seriesBytes = times(inputs.horizonSeconds, model.bytesPerSecondOfSeries)
        // Pending events beyond the per-push ones: a few timers and requests per active session.
        let events = inputs.activeSessionsPeak * 4
        parts = [
            Part(name: "process and code", bytes: model.processBaseBytes),
            Part(name: "devices", bytes: concurrent &* times(inputs.devices, model.bytesPerDevice)),
        ]
        // Per-device state of models that are on (absent parts when off: the estimate as before).
        if inputs.radioEnergy == true {
            parts.append(Part(name: "radio energy state", bytes: concurrent &* times(inputs.devices, model.bytesPerDeviceRadioEnergy)))
        }
        if inputs.budgetedLedgers == true {
            parts.append(Part(name: "budgeted ledgers", bytes: concurrent &* times(inputs.devices, model.bytesPerDeviceBudgetedLedger)))
        }
        if inputs.offlineStores == true {
            parts.append(Part(name: "offline stores", bytes: concurrent &* times(inputs.devices, model.bytesPerDeviceOfflineStore)))
        }
        if inputs.collapseKeySlots == true {
            parts.append(Part(name: "offline collapse keys", bytes: concurrent &* times(inputs.devices, model.bytesPerDeviceCollapseKeySlots)))
        }
        if inputs.dozeCollapse == true {
            parts.append(Part(name: "Doze collapse holds", bytes: concurrent &* times(inputs.devices, UInt64(PerDeviceStateBytes.dozeCollapse))))
        }
        if let b = inputs.deviceCapsBytesPerDevice {
            parts.append(Part(name: "FCM per-device limits", bytes: concurrent &* times(inputs.devices, UInt64(max(0, b)))))
        }
        if let n = inputs.campaignTallies {
            let each = CampaignTallyBytes.fixedPerCampaign &+ times(inputs.horizonSeconds, CampaignTallyBytes.perCampaignPerSecond)
            parts.append(Part(name: "per-campaign counters", bytes: concurrent &* times(n, each)))
        }
        parts += [
            Part(name: "pushes", bytes: concurrent &* times(inputs.pushesTargeted, model.bytesPerPush)),
            Part(name: "active sessions", bytes: concurrent &* times(inputs.activeSessionsPeak, model.bytesPerActiveSession)),
            Part(name: "pending events", bytes: concurrent &* times(events, model.bytesPerPendingEvent)),
            Part(name: "histograms and time series", bytes: concurrent &* (model.histogramBytesPerReplication &+ seriesBytes)),
            Part(name: "kept replication results", bytes: times(inputs.replications, model.histogramBytesPerReplication &+ seriesBytes)),
        ]
    }
}

/// The constants of `MemoryEstimate`.
///
/// Calibration (see docs/performance.md): peak RSS (`peakResidentBytes` in run-info.json) of
/// `black-friday-flash-sale --replications 1 --jobs 1` (one push per device, three assets) in a
/// release build was 48.5 MB at `--devices 20000`, 76.2 MB at 200 000, 131.5 MB at 1 M, 197.7 MB
/// at 2 M, 445 MB at 5 M and 3 223 MB at 50 M: 62–77 bytes per device between 200 000 and 50 M
/// (per-device arrays ≈ 23 bytes, parked preload-store entries 20 bytes each, far-future tap
/// entries 26 bytes, plus array growth by doubling). `bytesPerDevice + bytesPerPush` = 75 sits at
/// the top of that range, so the estimate runs 15–25 % above the measured peak at 5 M and 50 M
/// devices. Debug builds use more. Sessions live about a second at a high send rate (the model's
/// `sessions.activeMax` was 8 809 at 5 M devices sent at 20 000 pushes/s), so the session term,
/// which assumes rate × `RunCommand.sessionSecondsAssumed`, over-covers small runs.
package struct MemoryModel: Sendable, Equatable, Codable {
    /// The process before any replication: code, Foundation, GSL, the resolved scenario.
    var processBaseBytes: UInt64 = 40 << 20
    /// Per device per concurrent replication (device arrays, parked-store offsets).
    var bytesPerDevice: UInt64 = 30
    /// Per device per concurrent replication with the radio energy model on: its radio state
    /// (`PerDeviceStateBytes.radioEnergy`, the stride of the state word: 8 bytes).
    var bytesPerDeviceRadioEnergy = UInt64(PerDeviceStateBytes.radioEnergy)
    /// Per device per concurrent replication under the `budgeted` decision kind: its ledger
    /// (`PerDeviceStateBytes.budgetedLedger`, the stride of the compact ledger: 24 bytes).
    var bytesPerDeviceBudgetedLedger = UInt64(PerDeviceStateBytes.budgetedLedger)
    /// Per device per concurrent replication with offline windows: its store slot
    /// (`PerDeviceStateBytes.offlineStore`, four 16-bit counters: 8 bytes).
    var bytesPerDeviceOfflineStore = UInt64(PerDeviceStateBytes.offlineStore)
    /// Per device per concurrent replication with offline windows and several collapse keys
    /// (`PerDeviceStateBytes.collapseKeySlots`, four 16-bit message ids: 8 bytes).
    var bytesPerDeviceCollapseKeySlots = UInt64(PerDeviceStateBytes.collapseKeySlots)
    /// Per targeted push per concurrent replication (the preload-store entries it leaves parked,
    /// its far-future tap and delivery entries).
    var bytesPerPush: UInt64 = 45
    /// Per session alive at once (handler state, download requests, network flows).
    var bytesPerActiveSession: UInt64 = 2_048
    /// Per pending event of an active session in the kernel's event set (heap slot plus payload).
    var bytesPerPendingEvent: UInt64 = 64
    /// All latency histograms of one replication (tap-to-paint per platform × network, download
    /// latency, ...): about 30 histograms of ~60 kB.
    var histogramBytesPerReplication: UInt64 = 2 << 20
    /// Per second of horizon: the per-second counters (about 12 series of 8 bytes, plus per-PoP rows)
    /// and the tap-to-paint windows (about 3.5 KiB per 10 s, `WindowedLatencyHistogram`).
    var bytesPerSecondOfSeries: UInt64 = 256 + 360

    /// The calibrated defaults.
    package init() {}
}

/// How much memory this machine has for a run.
package struct AvailableMemory: Sendable, Equatable {
    /// Bytes.
    package var bytes: UInt64
    /// Where the figure comes from ("MemAvailable in /proc/meminfo", "physical memory").
    package var source: String

    /// A figure and its source.
    init(bytes: UInt64, source: String) {
        self.bytes = bytes
        self.source = source
    }

    /// The smaller of the machine's memory (`MemAvailable` from /proc/meminfo, else the physical
    /// memory size) and the room left under this process's control-group memory limit (a
    /// container's or a batch job's), read below `cgroupRoot` for the group named in
    /// `procSelfCgroup` (cgroup v2 `memory.max` − `memory.current`, or v1
    /// `memory.limit_in_bytes` − `memory.usage_in_bytes`, the tightest of the group and its
    /// ancestors). Both paths are parameters so tests can give fake files.
    package static func probe(meminfo: String = "/proc/meminfo", procSelfCgroup: String = "/proc/self/cgroup",
                             cgroupRoot: String = "/sys/fs/cgroup") -> AvailableMemory {
        var machine: AvailableMemory
        if let text = try? String(contentsOfFile: meminfo, encoding: .utf8), let bytes = memAvailableBytes(inMeminfo: text) {
            machine = AvailableMemory(bytes: bytes, source: "MemAvailable in \(meminfo)")
        } else {
            machine = AvailableMemory(bytes: ProcessInfo.processInfo.physicalMemory, source: "physical memory (no MemAvailable in \(meminfo))")
        }
        if let limit = CgroupMemory.room(procSelfCgroup: procSelfCgroup, root: cgroupRoot), limit.bytes < machine.bytes {
            machine = limit
        }
        return machine
    }

    /// The `MemAvailable:` line of /proc/meminfo text, in bytes (the file states kB = KiB).
    /// - Complexity: O(text length).
    static func memAvailableBytes(inMeminfo text: String) -> UInt64? {
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let value = UInt64(fields[1]) else { return nil }
            let unit = fields.count >= 3 ? fields[2].lowercased() : "b"
            switch unit {
            case "kb": return value.multipliedReportingOverflow(by: 1024).overflow ? nil : value * 1024
            case "b": return value
            default: return nil
            }
        }
        return nil
    }
}

/// The memory guard: a run whose estimate exceeds the available memory is refused unless forced.
package enum MemoryGuard {
    /// Nil if the run fits, else the refusal message (naming the estimate, its largest parts, the
    /// available memory, and the flags that change the outcome).
    package static func refusal(estimate: MemoryEstimate, available: AvailableMemory, inputs: MemoryInputs) -> String? {
        guard estimate.totalBytes > available.bytes else { return nil }
        let largest = estimate.parts.sorted { $0.bytes > $1.bytes }.prefix(3)
            .map { "\($0.name) \(formatBytes($0.bytes))" }.joined(separator: ", ")
        var lines = [
            "refusing to run: the scenario needs about \(formatBytes(estimate.totalBytes)) of memory "
                + "but \(formatBytes(available.bytes)) is available (\(available.source)).",
            "  largest parts: \(largest)",
            "  (\(inputs.devices) devices, \(inputs.pushesTargeted) pushes, \(inputs.concurrentReplications) replication(s) at once)",
        ]
        if inputs.concurrentReplications > 1 {
            lines.append("  run fewer replications at once with --jobs 1, or fewer devices with --devices N,")
        } else {
            lines.append("  run fewer devices with --devices N,")
        }
        lines.append("  or pass --force-memory to run anyway (the system may swap or kill the process).")
        return lines.joined(separator: "\n")
    }

    /// "1.5 GiB", "820 MiB", "12 KiB".
    package static func formatBytes(_ bytes: UInt64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(bytes)
        var index = 0
        while value >= 1024, index + 1 < units.count {
            value /= 1024
            index += 1
        }
        if index == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + " " + units[index]
    }
}
