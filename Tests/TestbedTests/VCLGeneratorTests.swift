import Foundation
import XCTest
@testable import Testbed

final class VCLGeneratorTests: XCTestCase {
    static func spec(collapsing: Bool = true, tokenInKey: Bool = false) -> VCLSpec {
        VCLSpec(tier: .edge, backendPort: 4711, graceSeconds: 86_400, requestCollapsing: collapsing,
                cacheKeyIncludesSignedToken: tokenInKey, tokenParameters: ["token", "X-Amz-Signature"])
    }

    func testRulesFromTheSpecAppearInTheVCL() {
        let vcl = VCLGenerator.render(Self.spec())
        XCTAssertTrue(vcl.hasPrefix("vcl 4.1;"))
        XCTAssertTrue(vcl.contains("import xkey;"))
        XCTAssertTrue(vcl.contains(#".host = "127.0.0.1";"#))
        XCTAssertTrue(vcl.contains(#".port = "4711";"#))
        XCTAssertTrue(vcl.contains("set beresp.grace = 86400s;"), "stale-while-revalidate becomes grace")
        XCTAssertTrue(vcl.contains("set beresp.keep = 86400s;"), "expired objects are kept for conditional refetches")
        XCTAssertTrue(vcl.contains("xkey.purge(req.http.xkey-purge)"), "purge by surrogate key")
        XCTAssertTrue(vcl.contains("client.ip !~ purgers"), "purge only from the ACL")
        XCTAssertFalse(vcl.contains("hash_ignore_busy"), "collapsing on: Varnish's waiting list is used")
        // The token is stripped from the key, not from the URL sent upstream.
        XCTAssertTrue(vcl.contains("hash_data(req.http.X-Key-URL);"))
        XCTAssertFalse(vcl.contains("set req.url"))
        XCTAssertTrue(vcl.contains(#"(token|X\-Amz\-Signature)=[^&]*"#), "token names are regex-escaped")
    }

    func testCollapsingOffAndTokenInKey() {
        let vcl = VCLGenerator.render(Self.spec(collapsing: false, tokenInKey: true))
        XCTAssertTrue(vcl.contains("set req.hash_ignore_busy = true;"))
        XCTAssertTrue(vcl.contains("hash_data(req.url);"))
        XCTAssertFalse(vcl.contains("X-Key-URL"))
    }

    /// Varnish's own compiler accepts every variant (`varnishd -C`), with the xkey vmod loaded.
    func testVarnishCompilesEveryVariant() throws {
        try requireTestbedEnvironment()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vcl-test-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for collapsing in [true, false] {
            for tokenInKey in [true, false] {
                let file = dir.appendingPathComponent("t.vcl")
                try VCLGenerator.render(Self.spec(collapsing: collapsing, tokenInKey: tokenInKey)).write(to: file, atomically: true, encoding: .utf8)
                let p = Process()
                p.executableURL = URL(fileURLWithPath: "/usr/sbin/varnishd")
                p.arguments = ["-C", "-j", "none", "-n", dir.appendingPathComponent("n").path, "-f", file.path]
                let errors = Pipe()
                p.standardError = errors
                p.standardOutput = FileHandle.nullDevice
                try p.run()
                let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                XCTAssertEqual(p.terminationStatus, 0, "collapsing \(collapsing), token in key \(tokenInKey): \(text.suffix(600))")
            }
        }
    }

    /// The generated VCL in a real Varnish in front of the testbed origin: the token is out of the
    /// key (a second device's URL hits), a purge by surrogate key empties it, and with the token
    /// in the key every device misses.
    func testVarnishBehaviour() throws {
        try requireTestbedEnvironment()
        for tokenInKey in [false, true] {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vcl-behaviour-\(getpid())-\(tokenInKey)", isDirectory: true)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let object = TestbedCatalog.Object(path: "/preload/c/hero.jpg", bytes: 5_000, contentType: "image/jpeg", prefix: [0xFF, 0xD8, 0xFF],
                                               cacheControl: "public, max-age=600, stale-while-revalidate=600")
            let layout = TestbedStack.Layout(
                workDirectory: dir, python: "python3",
                origin: .init(workers: 4, queueMax: 16, serviceSeconds: [0.001], toOriginSeconds: [0], objects: [object], surrogateKey: "campaign-c"),
                shieldSpecs: [], edgeSpecs: [VCLSpec(tier: .edge, backendPort: 0, graceSeconds: 600, requestCollapsing: true,
                                                     cacheKeyIncludesSignedToken: tokenInKey)],
                edgeShield: [nil], backboneLinks: [],
                accessLinks: [[TestbedStack.Link(name: "direct", upstreamPort: 0, handshakeRoundTrips: 0, links: [[0, 0]])]], cacheMegabytes: 16)
            let stack = TestbedStack(layout: layout)
            try stack.start(interrupted: { false })
            defer { stack.stop() }
            let edge = stack.edgePorts[0]
            func get(_ token: String) -> String? {
                LoopbackHTTP.request(port: edge, path: object.path + "?token=" + token)?.headers["x-cache"]
            }
            XCTAssertEqual(get("a"), "MISS")
            XCTAssertEqual(get("b"), tokenInKey ? "MISS" : "HIT", "token in key: \(tokenInKey)")
            let purge = LoopbackHTTP.request(port: edge, path: "/", method: "PURGE", headers: [("xkey-purge", "campaign-c")])
            XCTAssertEqual(purge?.status, 200)
            XCTAssertEqual(get("a"), "MISS", "purged by surrogate key")
            XCTAssertEqual(get("a"), "HIT")
            // The shaped path (zero RTT, unlimited) reaches the same cache.
            let viaLink = LoopbackHTTP.request(port: stack.accessPorts[0][0], path: object.path + "?token=a")
            XCTAssertEqual(viaLink?.status, 200)
            XCTAssertEqual(viaLink?.body.count, 5_000)
            XCTAssertEqual(viaLink?.body.prefix(3), Data([0xFF, 0xD8, 0xFF]))
        }
    }
}
