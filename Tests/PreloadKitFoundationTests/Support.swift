import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// The HMAC key the tests' campaign service signs with.
let testSigningKey = Array("prestage-driver-test-key".utf8)

/// Payload options for the loopback server: http allowed for 127.0.0.1 only, signatures required.
func loopbackOptions() throws -> PayloadOptions {
    let urlPolicy = URLPolicy(allowlist: try HostAllowlist(["127.0.0.1"]), plainHTTPHosts: ["127.0.0.1"])
    return PayloadOptions(urlPolicy: urlPolicy, signingKey: testSigningKey, signatureRequirement: .required)
}

/// A policy with test-sized deadlines; the free-storage floor is low because contexts report a
/// fixed 10 GB (the tests do not depend on the machine's disk).
func testPolicy(hardDeadlineMicroseconds: Int64 = 8_000_000, requestTimeoutMicroseconds: Int64 = 6_000_000) throws -> PreloadPolicy {
    var policy = PreloadPolicy(manifestOptions: try loopbackOptions())
    policy.deadlines.iOSServiceExtensionMicroseconds = hardDeadlineMicroseconds
    policy.requestTimeoutMicroseconds = requestTimeoutMicroseconds
    policy.fetchWindowMinMicroseconds = 100_000
    policy.freeStorageFloorBytes = 1_000_000
    return policy
}

/// A Wi-Fi NSE wake-up with plenty of storage.
let nseContext = DeviceContext(handlerKind: .iOSServiceExtension, network: .wifi, freeStorageBytes: 10_000_000_000, receiptJitterUniform: 0)

/// Signs `payload` the way a campaign service would (canonical form + HMAC-SHA256) and puts the
/// signature where its form expects it (`cdn_preload.signature`, or top level for rich pushes).
func signedJSON(_ payload: [String: Any], key: [UInt8] = testSigningKey, tamper: Bool = false) throws -> Data {
    let options = try loopbackOptions()
    let canonical = try PayloadParser.canonicalForm(of: try PayloadValue(any: payload), options: options)
    var hex = HMACSHA256.mac(key: key, message: canonical).map { String(format: "%02x", $0) }.joined()
    if tamper {
        // Flip the last hex digit: still well-formed, no longer matching.
        let last = hex.removeLast()
        hex.append(last == "0" ? "1" : "0")
    }
    var signed = payload
    if var preload = payload["cdn_preload"] as? [String: Any] {
        preload["signature"] = "v1=" + hex
        signed["cdn_preload"] = preload
    } else {
        signed["signature"] = "v1=" + hex
    }
    return try JSONSerialization.data(withJSONObject: signed, options: [.sortedKeys])
}

/// An inline-manifest push (visible, mutable-content) with critical assets `(url, type, bytes)`.
func inlinePayload(manifestID: String, assets: [(String, String, Int)]) -> [String: Any] {
    [
        "aps": ["alert": ["title": "Your weekly mix", "body": "Tap to play 12 new tracks"], "mutable-content": 1],
        "cdn_preload": [
            "manifest_id": manifestID,
            "ttl": 3600,
            "assets": assets.map { ["url": $0.0, "type": $0.1, "priority": "critical", "bytes": $0.2] as [String: Any] },
        ] as [String: Any],
    ]
}

/// The store key PreloadKit derives for `url` (the contract: SHA-256 of the URL's cache key).
func storeKey(_ url: String) throws -> StoreKey {
    try AssetURL.parse(url, policy: loopbackOptions().urlPolicy).storeKey
}

/// Sorted names in `directory`.
func fileNames(_ directory: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data).map { String(format: "%02x", $0) }.joined()
}

/// Thread-safe call counter for content handlers and receipt handlers.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []
    func append(_ value: Value) { lock.lock(); storage.append(value); lock.unlock() }
    var values: [Value] { lock.lock(); defer { lock.unlock() }; return storage }
}

extension FetchOutcome.State {
    var isStored: Bool {
        if case .stored = self { return true }
        return false
    }
}
