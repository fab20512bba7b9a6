import XCTest
@testable import PreloadKit

/// Milliseconds → Instant.
func ms(_ x: Int64) -> Instant { Instant(microseconds: x * 1_000) }

/// A session plus a helper that feeds one input and returns every action it produced.
struct Harness {
    var session: PreloadSession

    init(policy: PreloadPolicy = Fixtures.policy(), store: PreloadStore = PreloadStore()) throws {
        session = try PreloadSession(policy: policy, store: store)
    }

    mutating func feed(_ input: Input, at now: Instant) throws -> [Action] {
        try session.handle(input, now: now)
        var out: [Action] = []
        while let a = session.pollAction() { out.append(a) }
        return out
    }
}

enum Sessions {
    static let webpCC = "public, max-age=14400, stale-while-revalidate=86400"

    static func context(_ kind: HandlerKind = .iOSServiceExtension, _ network: NetworkClass = .wifi, free: Int64 = 10_000_000_000,
                        constrained: Bool = false, expensive: Bool = false, saveData: Bool = false, uniform: Double = 0.25) -> DeviceContext {
        DeviceContext(handlerKind: kind, network: network, isConstrained: constrained, isExpensive: expensive, saveData: saveData,
                      freeStorageBytes: free, receiptJitterUniform: uniform)
    }

    static func request(_ json: String, _ requirement: SignatureRequirement = .required) throws -> PreStageRequest {
        try PayloadParser.parse(json: Fixtures.bytes(json), options: Fixtures.options(requirement))
    }

    static func completion(_ bytes: Int64, _ contentType: String?, _ prefix: [UInt8], cacheControl: String? = webpCC,
                           contentLength: Int64? = nil, status: Int = 200, body: FetchBody = .none) -> FetchCompletion {
        FetchCompletion(headers: FetchHeaders(status: status, cacheControl: cacheControl, contentType: contentType, contentLength: contentLength ?? bytes),
                        bytesReceived: bytes, prefix: prefix, body: body)
    }

    /// A store with the article's cover fresh (until 1000 s) and its preview expired at 10 s,
    /// usable until `staleUntil`, with `etag` and `errorUntil`.
    static func storeWithExpiredPreview(_ r: PreStageRequest, staleUntil: Instant, etag: EntityTag? = nil,
                                        errorUntil: Instant? = nil) -> PreloadStore {
        var store = PreloadStore()
        store.insert(PreloadStore.Entry(key: r.assets[0].key, bytes: 48_200, storedAt: ms(0), expiresAt: ms(1_000_000), staleUntil: ms(1_000_000),
                                        lastUsed: ms(0), manifestTag: r.manifestTag, kind: .webp))
        store.insert(PreloadStore.Entry(key: r.assets[1].key, bytes: 300_000, storedAt: ms(0), expiresAt: ms(10_000), staleUntil: staleUntil,
                                        lastUsed: ms(0), manifestTag: r.manifestTag, kind: .m3u8, etag: etag, errorUntil: errorUntil))
        return store
    }

    /// The fetch requests among actions.
    static func starts(_ actions: [Action]) -> [FetchRequest] {
        actions.compactMap { if case .startFetch(let r) = $0 { return r } else { return nil } }
    }

    static func deliveries(_ actions: [Action]) -> [Delivery] {
        actions.compactMap { if case .deliver(let d) = $0 { return d } else { return nil } }
    }
}
