import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real components of one testbed run, started in dependency order and stopped together:
/// origin → shields → backbone links (edge → shield) → edges → access links (device → edge).
/// Every listener is on 127.0.0.1 on a port picked free; a component that cannot start is retried
/// on fresh ports (``startAttempts``), and a failure stops everything started so far.
package final class TestbedStack: @unchecked Sendable {
    /// The origin's pool and catalogue (see ``OriginServerScript``).
    package struct OriginSettings: Sendable {
        package var workers: Int
        package var queueMax: Int
        package var serviceSeconds: [Double]
        package var toOriginSeconds: [Double]
        package var objects: [TestbedCatalog.Object]
        package var surrogateKey: String
        /// Objects only the calibration devices fetch, under their own surrogate key (a creative
        /// swap does not purge them).
        package var calibrationObjects: [TestbedCatalog.Object] = []
        package static let calibrationSurrogateKey = "testbed-calibration"
        /// The origin sends its ETag and answers a matching If-None-Match with 304
        /// (`infra.origin.sendsValidators`).
        package var sendsValidators = true

        var json: [String: Any] {
            var table: [String: Any] = [:]
            for (list, key) in [(objects, surrogateKey), (calibrationObjects, Self.calibrationSurrogateKey)] {
                for o in list {
                    table[o.path] = ["bytes": o.bytes, "contentType": o.contentType, "prefixHex": TestbedCatalog.hex(o.prefix),
                                     "cacheControl": o.cacheControl, "etag": TestbedCatalog.hex(Array(o.path.utf8.prefix(8))) + "-\(o.bytes)",
                                     "xkey": key + " path-" + TestbedCatalog.hex(Array(o.path.utf8)).suffix(16)]
                }
            }
            return ["workers": workers, "queueMax": queueMax, "serviceSeconds": serviceSeconds,
                    "toOriginSeconds": toOriginSeconds, "objects": table, "sendsValidators": sendsValidators]
        }
    }

    /// One shaper listener: a network class in front of a PoP, or an edge's path to its shield.
    package struct Link: Sendable, Equatable {
        package var name: String
        package var upstreamPort: Int
        package var handshakeRoundTrips: Int
        /// `[rttSeconds, bitsPerSecond, retransmissionTimeoutSeconds]` per connection, used in order
        /// (0 bits/s = unlimited).
        package var links: [[Double]]
        /// Probability that a downstream segment is lost (costing the connection's timeout).
        package var segmentLossProbability: Double = 0
    }

    /// What to start.
    package struct Layout: Sendable {
        package var workDirectory: URL
        package var python: String
        package var origin: OriginSettings
        /// Shield VCL per shield (the backend port is filled in at start: the origin).
        package var shieldSpecs: [VCLSpec]
        /// Edge VCL per PoP (the backend port is filled in at start: its backbone link, or the
        /// origin when `edgeShield[pop]` is nil).
        package var edgeSpecs: [VCLSpec]
        package var edgeShield: [Int?]
        /// One per edge with a shield, in PoP order (the upstream port is the shield's, filled in).
        package var backboneLinks: [Link]
        /// Access links per PoP (upstream port filled in with the edge's).
        package var accessLinks: [[Link]]
        package var cacheMegabytes: Int
        /// Seeds the shapers' segment-loss draws (with the listener and the connection index).
        package var lossSeed: UInt64 = 0
    }

    package static let startAttempts = 3
    package static let readySeconds = 20.0

    package private(set) var originPort = 0
    package private(set) var shieldPorts: [Int] = []
    package private(set) var edgePorts: [Int] = []
    /// Backbone link port per edge (nil: the edge fetches from the origin directly).
    package private(set) var backbonePorts: [Int] = []
    /// Access link ports: `accessPorts[pop][i]` for `layout.accessLinks[pop][i]`.
    package private(set) var accessPorts: [[Int]] = []
    package private(set) var origin: ChildProcess?
    package private(set) var shields: [ChildProcess] = []
    package private(set) var edges: [ChildProcess] = []
    package private(set) var backbone: ChildProcess?
    package private(set) var access: ChildProcess?
    /// Varnish working directories (for varnishstat), edges then shields.
    package private(set) var edgeDirectories: [URL] = []
    package private(set) var shieldDirectories: [URL] = []
    package let layout: Layout
    /// `n` distinct ports believed free on 127.0.0.1, or nil (tests inject a taken one).
    let freePorts: @Sendable (Int) -> [Int]?
    private let lock = NSLock()

    package convenience init(layout: Layout) { self.init(layout: layout, freePorts: LoopbackHTTP.freePorts) }

    init(layout: Layout, freePorts: @escaping @Sendable (Int) -> [Int]?) {
        self.layout = layout
        self.freePorts = freePorts
    }

    /// Every component started so far.
    package var components: [ChildProcess] {
        lock.lock()
        defer { lock.unlock() }
        return edges + [access, backbone].compactMap { $0 } + shields + [origin].compactMap { $0 }
    }

    /// The first component that is no longer running, if any.
    package func deadComponent() -> ChildProcess? { components.first { !$0.isRunning } }

    /// Starts everything; on failure stops what was started and throws naming the component.
    package func start(interrupted: @escaping @Sendable () -> Bool) throws(TestbedError) {
        do {
            try startAll(interrupted: interrupted)
        } catch {
            stop()
            throw error
        }
    }

    private func startAll(interrupted: @escaping @Sendable () -> Bool) throws(TestbedError) {
        try startOrigin(interrupted: interrupted)
        try startTiers(interrupted: interrupted)
    }

    /// The origin alone (``startAll`` and the shaper's tests).
    func startOrigin(interrupted: @escaping @Sendable () -> Bool) throws(TestbedError) {
        let dir = layout.workDirectory
        let originScript = try writeFile(dir.appendingPathComponent(OriginServerScript.fileName), OriginServerScript.source)
        let (p, ports) = try withRetries("origin", ports: 1) { ports throws(TestbedError) in
            let port = ports[0]
            var config = layout.origin.json
            config["port"] = port
            config["parentPid"] = Int(getpid())
            let ready = dir.appendingPathComponent("origin.ready")
            try? FileManager.default.removeItem(at: ready)
            config["readyFile"] = ready.path
            let configURL = try writeJSON(dir.appendingPathComponent("origin.json"), config)
            let p = try ChildProcess(name: "origin", executable: layout.python, arguments: [originScript.path, configURL.path],
                                     logURL: dir.appendingPathComponent("origin.log"))
            try waitForFile(ready, of: p, interrupted: interrupted)
            return p
        }
        lock.withLock { origin = p }
        originPort = ports[0]
    }

    private func startTiers(interrupted: @escaping @Sendable () -> Bool) throws(TestbedError) {
        // Shields.
        for (i, spec) in layout.shieldSpecs.enumerated() {
            var s = spec
            s.backendPort = originPort
            let (p, port, d) = try startVarnish("varnish shield \(i)", directoryName: "shield\(i)", spec: s, interrupted: interrupted)
            lock.withLock { shields.append(p); shieldPorts.append(port); shieldDirectories.append(d) }
        }
        // Backbone links (edge → shield).
        if !layout.backboneLinks.isEmpty {
            var links = layout.backboneLinks
            var i = 0
            for (pop, shield) in layout.edgeShield.enumerated() {
                guard let shield else { continue }
                links[i].upstreamPort = shieldPorts[shield]
                links[i].name = "edge\(pop)-shield\(shield)"
                i += 1
            }
            let (p, ports) = try startShaper("link shaper (edge → shield)", name: "backbone", links: links, interrupted: interrupted)
            lock.withLock { backbone = p }
            backbonePorts = ports
        }
        // Edges.
        var backboneIndex = 0
        for (pop, spec) in layout.edgeSpecs.enumerated() {
            var s = spec
            if layout.edgeShield[pop] != nil {
                s.backendPort = backbonePorts[backboneIndex]
                backboneIndex += 1
            } else {
                s.backendPort = originPort
            }
            let (p, port, d) = try startVarnish("varnish edge \(pop)", directoryName: "edge\(pop)", spec: s, interrupted: interrupted)
            lock.withLock { edges.append(p); edgePorts.append(port); edgeDirectories.append(d) }
        }
        // Access links (device → edge).
        var all: [Link] = []
        var counts: [Int] = []
        for (pop, links) in layout.accessLinks.enumerated() {
            counts.append(links.count)
            for var l in links {
                l.upstreamPort = edgePorts[pop]
                all.append(l)
            }
        }
        let (p, ports) = try startShaper("link shaper (device → edge)", name: "access", links: all, interrupted: interrupted)
        lock.withLock { access = p }
        var k = 0
        accessPorts = counts.map { n in
            defer { k += n }
            return Array(ports[k..<(k + n)])
        }
    }

    private func startVarnish(_ name: String, directoryName: String, spec: VCLSpec,
                              interrupted: @escaping @Sendable () -> Bool) throws(TestbedError) -> (ChildProcess, Int, URL) {
        let dir = layout.workDirectory.appendingPathComponent("varnish-" + directoryName, isDirectory: true)
        let vcl = try writeFile(layout.workDirectory.appendingPathComponent(directoryName + ".vcl"), VCLGenerator.render(spec))
        var directory = dir
        let (p, ports) = try withRetries(name, ports: 1) { ports throws(TestbedError) in
            let port = ports[0]
            try? FileManager.default.removeItem(at: dir)
            let args = ["-F", "-j", "none", "-n", dir.path, "-a", "127.0.0.1:\(port)", "-T", "none", "-f", vcl.path,
                        "-s", "malloc,\(layout.cacheMegabytes)m",
                        "-p", "thread_pools=1", "-p", "thread_pool_min=20", "-p", "thread_pool_max=1000",
                        "-p", "default_grace=0", "-p", "timeout_idle=30"]
            // Varnish cannot watch its parent: with setpriv it gets SIGTERM when this process's
            // spawning thread ends (a `prestage` killed with SIGKILL leaves no Varnish behind). The
            // stack is started from the thread that runs the whole testbed (the command's main).
            let (executable, prefix) = FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                ? ("/usr/bin/setpriv", ["--pdeathsig", "TERM", "--", "/usr/sbin/varnishd"]) : ("/usr/sbin/varnishd", [])
            let p = try ChildProcess(name: name, executable: executable, arguments: prefix + args,
                                     logURL: layout.workDirectory.appendingPathComponent(directoryName + ".log"))
            let deadline = Date().addingTimeInterval(Self.readySeconds)
            while Date() < deadline {
                if interrupted() { p.stop(); throw .interrupted }
                if !p.isRunning { throw .componentFailed(component: name, reason: "exited during start-up (\(p.exitDescription))", log: p.logTail()) }
                if LoopbackHTTP.request(port: port, path: "/__testbed/health", timeoutSeconds: 1)?.status == 200 { return p }
                usleep(50_000)
            }
            p.stop()
            throw .componentFailed(component: name, reason: "not ready after \(Int(Self.readySeconds)) s", log: p.logTail())
        }
        directory = dir
        return (p, ports[0], directory)
    }

    func startShaper(_ name: String, name file: String, links: [Link],
                             interrupted: @escaping @Sendable () -> Bool) throws(TestbedError) -> (ChildProcess, [Int]) {
        let dir = layout.workDirectory
        let script = try writeFile(dir.appendingPathComponent(LinkShaperScript.fileName), LinkShaperScript.source)
        return try withRetries(name, ports: links.count) { ports throws(TestbedError) in
            let ready = dir.appendingPathComponent(file + ".ready")
            try? FileManager.default.removeItem(at: ready)
            let listeners: [[String: Any]] = zip(links, ports).map { l, port in
                ["name": l.name, "port": port, "upstreamPort": l.upstreamPort, "handshakeRoundTrips": l.handshakeRoundTrips, "links": l.links,
                 "segmentLossProbability": l.segmentLossProbability, "lossSeed": layout.lossSeed]
            }
            let config: [String: Any] = ["parentPid": Int(getpid()), "readyFile": ready.path,
                                         "statsFile": statsURL(file).path, "listeners": listeners]
            let configURL = try writeJSON(dir.appendingPathComponent(file + ".json"), config)
            let p = try ChildProcess(name: name, executable: layout.python, arguments: [script.path, configURL.path],
                                     logURL: dir.appendingPathComponent(file + ".log"))
            try waitForFile(ready, of: p, interrupted: interrupted)
            return p
        }
    }

    /// Where shaper `file` writes its counts when it stops.
    func statsURL(_ file: String) -> URL { layout.workDirectory.appendingPathComponent(file + "-stats.json") }

    /// Runs `start` on `ports` free ports, again on fresh ones when it fails (a port taken between
    /// the probe and the bind), at most ``startAttempts`` times.
    private func withRetries(_ name: String, ports count: Int,
                             _ start: ([Int]) throws(TestbedError) -> ChildProcess) throws(TestbedError) -> (ChildProcess, [Int]) {
        var lastError = TestbedError.componentFailed(component: name, reason: "no free port on 127.0.0.1", log: nil)
        for _ in 0..<Self.startAttempts {
            guard let ports = freePorts(count) else { continue }
            do {
                return (try start(ports), ports)
            } catch {
                if error == .interrupted { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    private func waitForFile(_ url: URL, of p: ChildProcess, interrupted: @Sendable () -> Bool) throws(TestbedError) {
        let deadline = Date().addingTimeInterval(Self.readySeconds)
        while Date() < deadline {
            if interrupted() { p.stop(); throw .interrupted }
            if FileManager.default.fileExists(atPath: url.path) { return }
            if !p.isRunning { throw .componentFailed(component: p.name, reason: "exited during start-up (\(p.exitDescription))", log: p.logTail()) }
            usleep(20_000)
        }
        p.stop()
        throw .componentFailed(component: p.name, reason: "not ready after \(Int(Self.readySeconds)) s", log: p.logTail())
    }

    /// Stops every component (all at once; each SIGTERM, then SIGKILL) and waits for them.
    package func stop() {
        let all = components
        DispatchQueue.concurrentPerform(iterations: all.count) { all[$0].stop() }
    }

    func writeFile(_ url: URL, _ text: String) throws(TestbedError) -> URL {
        do {
            try Data(text.utf8).write(to: url)
        } catch {
            throw .output(path: url.path, reason: "cannot write: \(error.localizedDescription)")
        }
        return url
    }

    func writeJSON(_ url: URL, _ object: Any) throws(TestbedError) -> URL {
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            try data.write(to: url)
        } catch {
            throw .output(path: url.path, reason: "cannot write: \(error.localizedDescription)")
        }
        return url
    }
}
