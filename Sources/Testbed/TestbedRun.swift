import Foundation
#if canImport(Glibc)
import Glibc
#endif
import InfraModel
import PushModel
import Stochastic
import PreloadKit

/// The origin's counters (`GET /__testbed/stats`).
package struct OriginCounters: Sendable, Equatable, Codable {
    package var requests: UInt64 = 0
    package var served: UInt64 = 0
    package var notModified: UInt64 = 0
    package var rejected503: UInt64 = 0
    package var notFound: UInt64 = 0
    package var queueLengthMax: UInt64 = 0
    package var bytes: UInt64 = 0
    package init() {}
}

/// What the real run measured.
package struct TestbedMeasurement: Sendable {
    package var records: [DeviceRecord]
    /// The calibration devices' records (not in `records` nor in any counter below).
    package var calibration: [DeviceRecord]
    /// Median download time of the calibration devices (zero-delay link, edge hit): the
    /// testbed's own overhead per download (URLSession, driver, store, shaper, Varnish), which the
    /// model does not have. Subtracted from the download samples before comparing; nil without data.
    package var overheadSeconds: Double? {
        let v = calibration.flatMap(\.downloadSeconds).sorted()
        return v.isEmpty ? nil : v[v.count / 2]
    }
    /// Edge counters from the end of the warm call to the end (device traffic), all edges.
    package var edge: VarnishCounters
    /// Shield counters over the whole run (warm included, as InfraModel's tier counters), all shields.
    package var shield: VarnishCounters
    package var origin: OriginCounters
    /// Wall time of the warm call (and re-warm), seconds.
    package var warmSeconds: Double
    /// Median CPU stretch of this process's threads while the devices ran (``SchedulingProbe``).
    package var cpuStretch: Double
    /// The machine's CPU pressure at the end of the device phase (PSI some avg60, %), if known.
    package var cpuPressurePercent: Double?
    /// The machine's 1-minute load average at the end of the device phase, and its processors.
    package var loadAverage: Double
    package var processors: Int
}

/// Ctrl-C / SIGTERM while the testbed runs: noted, so the run stops every component and returns.
package final class InterruptFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    private var sources: [DispatchSourceSignal] = []

    package init() {}

    package var isRaised: Bool { lock.withLock { raised } }
    package func raise() { lock.withLock { raised = true } }

    /// Catches SIGINT and SIGTERM until `uninstall()`.
    package func install() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [weak self] in self?.raise() }
            s.resume()
            sources.append(s)
        }
    }

    package func uninstall() {
        for s in sources { s.cancel() }
        sources = []
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// Runs the scaled scenario on the real components (``TestbedStack``) with the emulated devices
/// (``DeviceFleet``), and stops everything whatever happens.
package struct TestbedRunner: Sendable {
    package let plan: TestbedPlan
    package let workDirectory: URL
    package let python: String
    /// Test hook: called once the devices are running (e.g. to kill a component).
    package var onDevicesStarted: (@Sendable (TestbedStack) -> Void)?
    package var log: @Sendable (String) -> Void

    package init(plan: TestbedPlan, workDirectory: URL, python: String = "python3", log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.plan = plan
        self.workDirectory = workDirectory
        self.python = python
        self.log = log
    }

    /// Connections drawn per device for its link (pre-stage fetches, revalidations, foreground).
    static let linksPerDevice = 6
    /// Calibration devices, spread over the send window (see ``TestbedMeasurement/overheadSeconds``).
    static let calibrationDevices = 12
    /// The token in every calibration device's URLs (and the pre-caching request's).
    static let calibrationToken = "calibration"

    /// Checks that the programs exist before anything starts.
    package static func checkPrograms(python: String) throws(TestbedError) {
        let hint = "Run `make deps` (installs Debian's varnish and varnish-modules), or `apt-get install varnish varnish-modules`."
        for (name, path) in [("varnishd", "/usr/sbin/varnishd"), ("varnishstat", "/usr/bin/varnishstat")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            throw .missingProgram(name: name, hint: hint)
        }
        if !FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/varnish/vmods/libvmod_xkey.so")
            && !FileManager.default.fileExists(atPath: "/usr/lib/aarch64-linux-gnu/varnish/vmods/libvmod_xkey.so") {
            throw .missingProgram(name: "vmod xkey (varnish-modules)", hint: hint)
        }
        let found = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(python)")
        } || FileManager.default.isExecutableFile(atPath: python)
        if !found { throw .missingProgram(name: python, hint: "Install python3 (`make deps`).") }
    }

    package func run(interrupt: InterruptFlag) throws(TestbedError) -> TestbedMeasurement {
        try Self.checkPrograms(python: python)
        let (layout, specs) = try prepare()
        let stack = TestbedStack(layout: layout)
        log("starting origin, \(layout.shieldSpecs.count) shield(s), \(layout.edgeSpecs.count) edge(s) and the link shapers")
        try stack.start(interrupted: { interrupt.isRaised })
        do {
            let m = try drive(stack: stack, specs: specs, interrupt: interrupt)
            stack.stop()
            return m
        } catch {
            stack.stop()
            throw error
        }
    }

    /// The stack layout and the devices (links, arrival times, users), drawn from the scaled
    /// scenario with the run's seed.
    func prepare() throws(TestbedError) -> (TestbedStack.Layout, [DeviceSpec]) {
        let world = plan.scaled.world
        let infra = world.infra
        let campaign = plan.campaign
        let catalog = TestbedCatalog(campaign: campaign)
        let seed = plan.seed
        func sampler(_ d: Distribution, _ path: String) throws(TestbedError) -> Sampler {
            do { return try Sampler(d) } catch {
                throw .unsupportedScenario(path: path, found: "\(d)", expected: "a distribution the sampler accepts (\(error))")
            }
        }
        func draws(_ d: Distribution, _ path: String, _ count: Int, _ stream: String, lower: Double, upper: Double) throws(TestbedError) -> [Double] {
            let s = try sampler(d, path)
            let rng = RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("testbed." + stream))
            return (0..<count).map { _ in min(upper, max(lower, s.sample(rng))) }
        }

        // Devices: PoP, class, arrival, user.
        let n = plan.options.devices
        let classes = plan.networkClasses
        let weights = world.population.networkMix.weights
        let totalWeight = classes.reduce(0.0) { $0 + weights[Int($1.rawValue)] }
        let rng = RandomStream(masterSeed: seed, entity: 1, purpose: StreamPurpose("testbed.devices"))
        let delivery = try sampler(campaign.deliveryLatencySeconds, "campaigns[0].deliveryLatencySeconds")
        let tapDelay = try sampler(world.users.tapDelaySeconds, "users.tapDelaySeconds")
        let render = try sampler(world.users.renderSeconds, "users.renderSeconds")
        let storage = try sampler(world.population.freeStorageBytes, "population.freeStorageBytes")
        let segments = world.users.segments
        let segmentTotal = segments.reduce(0.0) { $0 + $1.share }
        let perMinute = campaign.timing.sendRatePerMinute
        var pops: [Int] = [], nets: [InfraModel.NetworkClass] = [], arrivals: [Double] = []
        var opens: [Bool] = [], taps: [Double] = [], renders: [Double] = [], free: [Int64] = []
        for i in 0..<n {
            pops.append(Int(rng.uniformInt(below: UInt64(plan.popCount))))
            var u = rng.uniform() * totalWeight
            var cls = classes[classes.count - 1]
            for c in classes {
                u -= weights[Int(c.rawValue)]
                if u < 0 { cls = c; break }
            }
            nets.append(cls)
            let send = campaign.sendStartSeconds + Double(i) / perMinute * 60
            arrivals.append(min(plan.options.seconds, send + max(0, delivery.sample(rng))))
            var v = rng.uniform() * segmentTotal
            var segment = segments[segments.count - 1]
            for s in segments {
                v -= s.share
                if v < 0 { segment = s; break }
            }
            opens.append(rng.bernoulli(segment.iosOpenProbability))
            taps.append(max(0, tapDelay.sample(rng)))
            renders.append(max(0, render.sample(rng)))
            free.append(Int64(max(0, min(1e15, storage.sample(rng)))))
        }

        // Links: one access listener per (PoP, class) in use; per-connection RTT and downlink.
        let setup = infra.connectionSetup
        let handshake = setup.dnsRoundTrips + setup.tcpRoundTrips + setup.tlsRoundTrips
        var accessLinks: [[TestbedStack.Link]] = []
        var linkIndex: [[Int]] = []  // [pop][class raw] -> index in accessLinks[pop]
        for pop in 0..<plan.popCount {
            var links: [TestbedStack.Link] = []
            var index = [Int](repeating: -1, count: InfraModel.NetworkClass.count)
            for cls in classes {
                let count = nets.indices.filter { pops[$0] == pop && nets[$0] == cls }.count
                guard count > 0 else { continue }
                let profile = infra.networks[cls]
                let k = count * Self.linksPerDevice + 8
                let rtt = try draws(profile.rttSeconds, "infra.networks.\(cls).rttSeconds", k, "rtt.\(pop).\(cls)", lower: 0, upper: 30)
                let bps = try draws(profile.downlinkBitsPerSecond, "infra.networks.\(cls).downlinkBitsPerSecond", k,
                                    "downlink.\(pop).\(cls)", lower: 1_000, upper: 10e9)
                index[Int(cls.rawValue)] = links.count
                links.append(TestbedStack.Link(name: "pop\(pop)-\(cls)", upstreamPort: 0, handshakeRoundTrips: handshake,
                                               links: zip(rtt, bps).map { [$0, $1, LossRecovery.timeoutSeconds(rttSeconds: $0)] },
                                               segmentLossProbability: profile.segmentLossProbability))
            }
            accessLinks.append(links)
            linkIndex.append(index)
        }
        // The calibration link: in front of edge 0, no delay, no rate limit, no set-up.
        let calibrationLink = accessLinks[0].count
        accessLinks[0].append(TestbedStack.Link(name: "calibration", upstreamPort: 0, handshakeRoundTrips: 0, links: [[0, 0]]))

        // Tiers.
        let tiering = infra.tiers.tieringEnabled
        let grace = campaign.cacheControl.staleWhileRevalidateSeconds
        func spec(_ tier: Tier) -> VCLSpec {
            VCLSpec(tier: tier, backendPort: 0, graceSeconds: grace, requestCollapsing: infra.tiers.requestCollapsingEnabled,
                    cacheKeyIncludesSignedToken: infra.cacheKeyIncludesSignedToken)
        }
        let shieldSpecs = tiering ? (0..<plan.shieldCount).map { _ in spec(.shield) } : []
        let edgeShield: [Int?] = (0..<plan.popCount).map { tiering ? plan.shield(ofPop: $0) : nil }
        var backbone: [TestbedStack.Link] = []
        for (pop, shield) in edgeShield.enumerated() {
            guard shield != nil else { continue }
            let rtt = try draws(infra.tiers.edgeToShieldSeconds, "infra.tiers.edgeToShieldSeconds", 256, "backbone.\(pop)", lower: 0, upper: 10)
            backbone.append(TestbedStack.Link(name: "edge\(pop)", upstreamPort: 0, handshakeRoundTrips: 0, links: rtt.map { [$0, 0] }))
        }
        let origin = TestbedStack.OriginSettings(
            workers: infra.origin.workers, queueMax: infra.origin.queueMax,
            serviceSeconds: try draws(infra.origin.serviceSeconds, "infra.origin.serviceSeconds", 8_192, "origin.service", lower: 0, upper: 60),
            toOriginSeconds: try draws(infra.tiers.toOriginSeconds, "infra.tiers.toOriginSeconds", 8_192, "origin.rtt", lower: 0, upper: 60),
            objects: catalog.objects, surrogateKey: catalog.surrogateKey,
            calibrationObjects: TestbedCatalog(campaign: TestbedCatalog.calibrationCampaign(campaign)).objects,
            sendsValidators: infra.origin.sendsValidators)
        let cacheMegabytes = Int(max(64, min(512, min(infra.edgeCache.capacityBytes, infra.shieldCache.capacityBytes) >> 20)))
        let layout = TestbedStack.Layout(workDirectory: workDirectory, python: python, origin: origin, shieldSpecs: shieldSpecs,
                                         edgeSpecs: (0..<plan.popCount).map { _ in spec(.edge) }, edgeShield: edgeShield,
                                         backboneLinks: backbone, accessLinks: accessLinks, cacheMegabytes: cacheMegabytes,
                                         lossSeed: seed)
        // Payloads need the link ports: built in `drive` once the stack is up.
        var specs = (0..<n).map { i in
            DeviceSpec(index: i, pop: pops[i], networkName: nets[i].description, network: CampaignPayload.preloadNetwork(nets[i]),
                       linkPort: linkIndex[pops[i]][Int(nets[i].rawValue)], receiveAtSeconds: arrivals[i], opens: opens[i],
                       tapDelaySeconds: taps[i], renderSeconds: renders[i], freeStorageBytes: free[i], payload: Data())
        }
        let window = Double(n) / perMinute * 60
        for k in 0..<Self.calibrationDevices {
            var c = DeviceSpec(index: n + k, pop: 0, networkName: "calibration", network: .wifi, linkPort: calibrationLink,
                               receiveAtSeconds: campaign.sendStartSeconds + (Double(k) + 0.5) / Double(Self.calibrationDevices) * window,
                               opens: false, tapDelaySeconds: 0, renderSeconds: 0, freeStorageBytes: 1 << 40, payload: Data())
            c.isCalibration = true
            specs.append(c)
        }
        return (layout, specs)
    }

    /// Warm, swap, devices; watches the components and the interrupt flag throughout.
    func drive(stack: TestbedStack, specs unbound: [DeviceSpec], interrupt: InterruptFlag) throws(TestbedError) -> TestbedMeasurement {
        let catalog = TestbedCatalog(campaign: plan.campaign)
        let calibrationCatalog = TestbedCatalog(campaign: TestbedCatalog.calibrationCampaign(plan.campaign))
        var specs = unbound
        for i in specs.indices {
            let port = stack.accessPorts[specs[i].pop][specs[i].linkPort]
            specs[i].linkPort = port
            specs[i].payload = specs[i].isCalibration
                ? try calibrationCatalog.payload(port: port, token: Self.calibrationToken)
                : try catalog.payload(port: port, token: TestbedCatalog.token(device: i))
        }
        // The calibration objects are cached at edge 0 first, under the calibration devices' one
        // token, so they hit whether or not the token is in the cache key (each costs one shield
        // and one origin request, taken out of the counters below).
        for o in calibrationCatalog.objects {
            _ = LoopbackHTTP.request(port: stack.edgePorts[0], path: o.path + "?token=" + Self.calibrationToken, timeoutSeconds: 30)
        }
        let calibrationCount = specs.filter(\.isCalibration).count
        let shieldBefore = stack.shieldDirectories.map { VarnishCounters.read(directory: $0) }
        let originBefore = Self.originCounters(port: stack.originPort)
        let world = plan.scaled.world
        let options = TestbedCatalog.payloadOptions()
        let policy = world.preloadPolicy.preloadPolicy(manifestOptions: options)
        let devicesDirectory = Self.deviceStoreParent().appendingPathComponent("prestage-testbed-devices-\(getpid())-\(UInt32.random(in: 0...UInt32.max))",
                                                                             isDirectory: true)
        defer { try? FileManager.default.removeItem(at: devicesDirectory) }
        let fleet = DeviceFleet(specs: specs, policy: policy, storeCapacityBytes: world.preloadPolicy.storeCapacityBytes,
                                storeEntriesMax: world.preloadPolicy.storeEntriesMax, directory: devicesDirectory,
                                horizonSeconds: plan.options.seconds,
                                extensionBudgetSeconds: world.platforms.ios.serviceExtensionBudgetSeconds,
                                expiryWarningLeadSeconds: world.platforms.ios.expiryWarningLeadSeconds,
                                foregroundTimeoutSeconds: world.users.foregroundTimeoutSeconds)
        let start = ContinuousClock.now + .milliseconds(300)
        let wallStart = Date().addingTimeInterval(0.3)
        func at(_ seconds: Double) -> Date { wallStart.addingTimeInterval(seconds) }

        // The fleet runs on the cooperative pool; this thread watches.
        let box = ResultBox<[DeviceRecord]>()
        let task = Task {
            box.set(await fleet.run(start: start))
        }
        func watch(until deadline: Date, stopWhenDone: Bool) throws(TestbedError) {
            while Date() < deadline {
                if interrupt.isRaised { task.cancel(); throw .interrupted }
                if let dead = stack.deadComponent() {
                    task.cancel()
                    throw .componentFailed(component: dead.name, reason: "died during the run (\(dead.exitDescription))", log: dead.logTail())
                }
                if stopWhenDone && box.get() != nil { return }
                usleep(50_000)
            }
        }

        // Warm call (and creative swap) on the scenario's timeline, before the first send.
        let campaign = plan.campaign
        let timing = campaign.timing
        var warmSeconds = 0.0
        if timing.warms {
            try watch(until: at(timing.warmSeconds), stopWhenDone: false)
            warmSeconds += warm(stack: stack, catalog: catalog)
        }
        if let swapSeconds = timing.swapSeconds {
            try watch(until: at(swapSeconds), stopWhenDone: false)
            purge(stack: stack, key: catalog.surrogateKey)
            if let rewarmSeconds = timing.rewarmSeconds {
                try watch(until: at(rewarmSeconds), stopWhenDone: false)
                warmSeconds += warm(stack: stack, catalog: catalog)
            }
        }
        let edgeBefore = stack.edgeDirectories.map { VarnishCounters.read(directory: $0) }
        log("warm call took \(String(format: "%.2f", warmSeconds)) s; \(specs.count - calibrationCount) devices (+\(calibrationCount) calibration) running for \(Int(plan.options.seconds)) s")
        let probe = SchedulingProbe()
        onDevicesStarted?(stack)
        // Bounded: the horizon plus the foreground time-out and the extension budget.
        let limit = at(plan.options.seconds + world.users.foregroundTimeoutSeconds + world.platforms.ios.serviceExtensionBudgetSeconds + 5)
        do {
            try watch(until: limit, stopWhenDone: true)
        } catch {
            _ = probe.stop()
            throw error
        }
        let stretch = probe.stop()
        guard let all = box.get() else {
            task.cancel()
            throw .componentFailed(component: "devices", reason: "still running after the horizon plus the time-outs", log: nil)
        }
        let calibrationIndices = Set(specs.filter(\.isCalibration).map(\.index))
        let records = all.filter { !calibrationIndices.contains($0.index) }
        let calibration = all.filter { calibrationIndices.contains($0.index) }
        var edge = VarnishCounters()
        for (i, d) in stack.edgeDirectories.enumerated() {
            if let after = VarnishCounters.read(directory: d) { edge = edge + after.since(edgeBefore[i] ?? VarnishCounters()) }
        }
        // The calibration devices' requests were edge-0 hits: not device traffic of the scenario.
        let calibrationRequests = UInt64(calibration.reduce(0) { $0 + $1.fetchesStarted })
        let calibrationBytes = UInt64(calibration.reduce(Int64(0)) { $0 + $1.backgroundBytes })
        edge.hits = edge.hits > calibrationRequests ? edge.hits - calibrationRequests : 0
        edge.clientRequests = edge.clientRequests > calibrationRequests ? edge.clientRequests - calibrationRequests : 0
        edge.bodyBytes = edge.bodyBytes > calibrationBytes ? edge.bodyBytes - calibrationBytes : 0
        var shield = VarnishCounters()
        for (i, d) in stack.shieldDirectories.enumerated() {
            if let c = VarnishCounters.read(directory: d) { shield = shield + c.since(shieldBefore[i] ?? VarnishCounters()) }
        }
        var origin = Self.originCounters(port: stack.originPort)
        origin.requests -= min(origin.requests, originBefore.requests)
        origin.served -= min(origin.served, originBefore.served)
        origin.bytes -= min(origin.bytes, originBefore.bytes)
        return TestbedMeasurement(records: records, calibration: calibration, edge: edge, shield: shield, origin: origin,
                                  warmSeconds: warmSeconds,
                                  cpuStretch: stretch, cpuPressurePercent: SchedulingProbe.cpuPressurePercent(),
                                  loadAverage: Self.loadAverage(),
                                  processors: ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Real requests for every object at the warmed nodes (edges for `allPops`/`topPops`, shields
    /// for `shieldsOnly`), all at once. Returns the wall time it took.
    func warm(stack: TestbedStack, catalog: TestbedCatalog) -> Double {
        let mode = plan.campaign.warm.mode
        let ports: [Int]
        switch mode {
        case .none: return 0
        case .allPops: ports = stack.edgePorts
        case .topPops: ports = Array(stack.edgePorts.prefix(plan.campaign.warm.topPops))
        case .shieldsOnly: ports = stack.shieldPorts.isEmpty ? stack.edgePorts : stack.shieldPorts
        }
        let calls = ports.flatMap { p in catalog.objects.map { (p, $0.path) } }
        let began = Date()
        // One thread per call: the calls are blocking, and a warm call's requests arrive together
        // (the model's warm propagation is one constant), so concurrent misses collapse.
        let group = DispatchGroup()
        for (port, path) in calls {
            group.enter()
            Thread {
                _ = LoopbackHTTP.request(port: port, path: path + "?token=warm", timeoutSeconds: 30)
                group.leave()
            }.start()
        }
        group.wait()
        return Date().timeIntervalSince(began)
    }

    /// PURGE by surrogate key at every edge and shield (a creative swap).
    func purge(stack: TestbedStack, key: String) {
        for p in stack.edgePorts + stack.shieldPorts {
            _ = LoopbackHTTP.request(port: p, path: "/", method: "PURGE", headers: [("xkey-purge", key)])
        }
    }

    /// Where the devices' stores live: tmpfs (`/dev/shm`) when available. The driver fsyncs
    /// every asset it stores; on this class of machine that costs 4–30 ms (tail 100 ms) on disk,
    /// a device storage latency the model does not have. On tmpfs the download time the driver
    /// measures is the network and CDN path the model describes.
    static func deviceStoreParent() -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
           FileManager.default.isWritableFile(atPath: "/dev/shm") {
            return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        }
        return FileManager.default.temporaryDirectory
    }

    /// The origin's counters now (zero when it does not answer).
    static func originCounters(port: Int) -> OriginCounters {
        guard let r = LoopbackHTTP.request(port: port, path: "/__testbed/stats"), r.status == 200,
              let c = try? JSONDecoder().decode(OriginCounters.self, from: r.body) else { return OriginCounters() }
        return c
    }

    /// The 1-minute load average (/proc/loadavg), or -1 when unreadable.
    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
              let first = text.split(separator: " ").first, let v = Double(first) else { return -1 }
        return v
    }
}

/// A value set once by another task.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    func set(_ v: T) { lock.withLock { value = v } }
    func get() -> T? { lock.withLock { value } }
}
