import Foundation
import XCTest
@testable import InfraModel
import Stochastic

/// The PoP cache model's LRU against libCacheSim's (the reference cache simulator of the caching
/// literature, through its pinned Python binding, Tests/oracles/requirements.txt): the same
/// request sequence must give exactly the same misses. Zipf popularity (α 0.8, 1.0, 1.2), byte
/// capacities from below the largest object to a third of the catalogue, unit and variable object
/// sizes, and an edge whose misses feed a shield.
///
/// The comparison is exact, not statistical: both are deterministic LRUs over one sequence, so
/// any difference (eviction order, the byte rule, an object larger than the cache) is a bug.
final class LibCacheSimOracleTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The venv's Python with libcachesim (`make test-swift` builds .build/oracle-venv), or
    /// PRESTAGE_ORACLE_PYTHON. `make test` sets the variable, so there the test never skips.
    static func python() throws -> URL {
        if let p = ProcessInfo.processInfo.environment["PRESTAGE_ORACLE_PYTHON"], !p.isEmpty { return URL(fileURLWithPath: p) }
        let venv = root.appendingPathComponent(".build/oracle-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: venv.path) else {
            throw XCTSkip("no Python with libcachesim: run `make test-swift` (it builds .build/oracle-venv) or set PRESTAGE_ORACLE_PYTHON")
        }
        return venv
    }

    /// One request: object id (from 1) and its size in bytes.
    typealias Request = (object: UInt64, bytes: Int64)

    /// `requests` independent Zipf(α) references over `objects` objects; object k's size is 1
    /// byte (`variableSizes` false) or drawn once per object, lognormal with median 20 kB and σ 1
    /// (a few objects exceed a small cache whole). Seeded: the same trace every run.
    func trace(objects: Int, alpha: Double, requests: Int, variableSizes: Bool, seed: UInt64) throws -> [Request] {
        let popularity = CheApproximation.zipfPopularities(count: objects, exponent: alpha)
        let table = try DiscreteTable(weights: popularity)
        let draws = RandomStream(masterSeed: seed, entity: 0, purpose: StreamPurpose("test.oracle.requests"))
        let sizeSampler = try Sampler(.lognormal(mu: log(20_000), sigma: 1))
        let sizeStream = RandomStream(masterSeed: seed, entity: 1, purpose: StreamPurpose("test.oracle.sizes"))
        let sizes: [Int64] = (0..<objects).map { _ in variableSizes ? max(1, Int64(sizeSampler.sample(sizeStream).rounded())) : 1 }
        return (0..<requests).map { _ in
            let k = table.draw(draws)
            return (UInt64(k + 1), sizes[k])
        }
    }

    /// Prestage's LRUCache as the PoP uses it: a lookup, on a hit a touch, on a miss an insert
    /// (which stores nothing for an object larger than the cache).
    func misses(_ trace: [Request], capacityBytes: Int64, into missed: inout [Request]) -> Int {
        var cache = LRUCache(capacityBytes: capacityBytes, entriesMax: 1 << 30)
        var count = 0
        for (t, r) in trace.enumerated() {
            let slot = cache.lookup(r.object, nowTicks: Int64(t))
            if slot >= 0 {
                cache.touch(slot, nowTicks: Int64(t))
            } else {
                count += 1
                missed.append(r)
                cache.insert(r.object, bytes: r.bytes, originTicks: 0, nowTicks: Int64(t))
            }
        }
        return count
    }

    /// libCacheSim's misses for `trace` at the edge (and the shield behind it).
    func oracle(_ trace: [Request], edgeBytes: Int64, shieldBytes: Int64?) throws -> (edge: Int, shield: Int?) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prestage-oracle-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("trace.txt")
        var text = ""
        text.reserveCapacity(trace.count * 12)
        for r in trace { text += "\(r.object) \(r.bytes)\n" }
        try Data(text.utf8).write(to: file)
        let p = Process()
        p.executableURL = try Self.python()
        p.arguments = [Self.root.appendingPathComponent("Tests/oracles/lru_misses.py").path, file.path, "\(edgeBytes)"] + (shieldBytes.map { ["\($0)"] } ?? [])
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw OracleFailure(description: "lru_misses.py exited with \(p.terminationStatus): \(message.suffix(2_000))")
        }
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Int], String(decoding: data, as: UTF8.self))
        XCTAssertEqual(json["requests"], trace.count)
        return (try XCTUnwrap(json["edgeMisses"]), json["shieldMisses"])
    }

    func testLRUMissesEqualLibCacheSimsOnZipfTraces() throws {
        _ = try Self.python()
        let objects = 20_000, requests = 100_000
        for (index, alpha) in [0.8, 1.0, 1.2].enumerated() {
            for variableSizes in [false, true] {
                let t = try trace(objects: objects, alpha: alpha, requests: requests, variableSizes: variableSizes, seed: 0x0AC1E + UInt64(index))
                let catalogueBytes = t.reduce(into: [UInt64: Int64]()) { $0[$1.object] = $1.bytes }.values.reduce(0, +)
                // From below the largest object (variable sizes) to a third of the bytes referenced.
                for share in [0.001, 0.01, 0.1, 0.33] {
                    let capacity = max(1, Int64(Double(catalogueBytes) * share))
                    var missed: [Request] = []
                    let ours = misses(t, capacityBytes: capacity, into: &missed)
                    let theirs = try oracle(t, edgeBytes: capacity, shieldBytes: nil)
                    XCTAssertEqual(ours, theirs.edge, "α \(alpha), \(variableSizes ? "variable" : "unit") sizes, capacity \(capacity) B of \(catalogueBytes) B")
                    XCTAssertGreaterThan(ours, 0)
                    XCTAssertLessThan(ours, requests)
                }
            }
        }
    }

    /// Two tiers: the edge's misses, in order, are the shield's requests.
    func testEdgeThenShieldMissesEqualLibCacheSims() throws {
        _ = try Self.python()
        let t = try trace(objects: 20_000, alpha: 0.9, requests: 200_000, variableSizes: true, seed: 0x5A1E1D)
        let catalogueBytes = t.reduce(into: [UInt64: Int64]()) { $0[$1.object] = $1.bytes }.values.reduce(0, +)
        let edgeBytes = catalogueBytes / 50, shieldBytes = catalogueBytes / 5
        var edgeMissed: [Request] = [], shieldMissed: [Request] = []
        let edge = misses(t, capacityBytes: edgeBytes, into: &edgeMissed)
        let shield = misses(edgeMissed, capacityBytes: shieldBytes, into: &shieldMissed)
        let theirs = try oracle(t, edgeBytes: edgeBytes, shieldBytes: shieldBytes)
        XCTAssertEqual(edge, theirs.edge)
        XCTAssertEqual(shield, theirs.shield)
        XCTAssertLessThan(shield, edge, "the shield absorbs part of the edge's misses")
    }
}

/// The oracle script failed (its exit status and standard error).
struct OracleFailure: Error, CustomStringConvertible {
    let description: String
}
