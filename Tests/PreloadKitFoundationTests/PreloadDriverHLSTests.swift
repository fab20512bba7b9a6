import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// `PreloadDriver` pre-staging an HLS asset under `PreloadPolicy.hls` against the loopback server:
/// a master playlist, two variants' media playlists and their segments (MPEG-2 TS documents).
final class PreloadDriverHLSTests: DriverFixtureTestCase {
    /// `count` bytes of MPEG-2 TS: 188-byte packets, each starting with the sync byte 0x47.
    static func transportStream(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { i in i % 188 == 0 ? 0x47 : (i % 188 == 1 ? 0x40 : UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed))) })
    }

    func testMasterPlaylistStoresTheChosenVariantsPlaylistAndFirstSegments() async throws {
        let master = """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=400000
            low/index.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000
            high/index.m3u8

            """
        func media(_ prefix: String) -> String {
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + (0..<4).map { "#EXTINF:0.1,\n\(prefix)\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        try await server.putDocument("trailer/master.m3u8", Data(master.utf8))
        try await server.putDocument("trailer/low/index.m3u8", Data(media("l").utf8))
        try await server.putDocument("trailer/high/index.m3u8", Data(media("h").utf8))
        for i in 0..<4 {
            try await server.putDocument("trailer/low/l\(i).ts", Self.transportStream(2_256, seed: UInt8(i)))
            try await server.putDocument("trailer/high/h\(i).ts", Self.transportStream(18_800, seed: UInt8(100 + i)))
        }

        var policy = try testPolicy()
        policy.hls.isEnabled = true
        policy.hls.segmentsToPreStage = 2
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store"))
        configuration.attachmentDirectory = directory.appendingPathComponent("attachments")
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)

        let masterURL = server.url("/doc/trailer/master.m3u8")
        let payload = try signedJSON(inlinePayload(manifestID: "trailer_1", assets: [(masterURL, "hls", 320_000)]))
        // Wi-Fi assumed at 20 Mbit/s (16 usable): the 3 Mbit/s variant.
        let result = try await driver.run(payload: payload, context: nseContext) { _ in }
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertEqual(result.delivery.selectedAssets, 4, "master, variant playlist, two segments")
        XCTAssertEqual(result.delivery.readyAssets, 4)
        XCTAssertTrue(result.fetches.allSatisfy { $0.state.isStored }, "\(result.fetches)")

        let expected = ["/doc/trailer/master.m3u8", "/doc/trailer/high/index.m3u8", "/doc/trailer/high/h0.ts", "/doc/trailer/high/h1.ts"]
        let log = try await server.requests()
        XCTAssertEqual(log.map(\.path), expected, "the chosen variant, its first two segments in order, nothing else")
        let keys = try expected.map { try storeKey(server.url($0)) }
        XCTAssertEqual(try fileNames(directory.appendingPathComponent("store")), (keys.map(\.fileName) + [FileStore.indexFileName]).sorted())
        for (path, key) in zip(expected, keys) {
            let sent = try XCTUnwrap(log.first { $0.path == path })
            let stored = try Data(contentsOf: directory.appendingPathComponent("store").appendingPathComponent(key.fileName))
            XCTAssertEqual(sha256Hex(stored), sent.sha256, path)
        }

        // On 3G (700 kbit/s assumed, 560 usable), with an empty store, the same push takes the
        // 400 kbit/s variant.
        var slowConfiguration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store3g"))
        slowConfiguration.attachmentDirectory = directory.appendingPathComponent("attachments3g")
        let slowDriver = try PreloadDriver(configuration: slowConfiguration)
        drivers.append(slowDriver)
        var slow = nseContext
        slow.network = .cellular3G
        let again = try await slowDriver.run(payload: payload, context: slow) { _ in }
        XCTAssertEqual(again.delivery.readyAssets, 4)
        let paths = try await server.requests().map(\.path).dropFirst(expected.count)
        XCTAssertEqual(Array(paths), ["/doc/trailer/master.m3u8", "/doc/trailer/low/index.m3u8", "/doc/trailer/low/l0.ts", "/doc/trailer/low/l1.ts"])
    }

    /// A variant that plays with a separate audio rendition: the real driver fetches and stores
    /// the rendition's playlist and first segment next to the variant's (the session's plan, as
    /// in the simulator), and the push is ready only with both.
    func testTheVariantsAudioRenditionIsStoredWithIt() async throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="en",DEFAULT=YES,URI="audio/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,AUDIO="aac"
            high/index.m3u8

            """
        func media(_ prefix: String) -> String {
            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + (0..<3).map { "#EXTINF:0.1,\n\(prefix)\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
        }
        try await server.putDocument("movie/master.m3u8", Data(master.utf8))
        try await server.putDocument("movie/high/index.m3u8", Data(media("h").utf8))
        try await server.putDocument("movie/audio/index.m3u8", Data(media("a").utf8))
        for i in 0..<3 {
            try await server.putDocument("movie/high/h\(i).ts", Self.transportStream(18_800, seed: UInt8(i)))
            try await server.putDocument("movie/audio/a\(i).ts", Self.transportStream(1_880, seed: UInt8(50 + i)))
        }
        var policy = try testPolicy()
        policy.hls.isEnabled = true
        policy.hls.segmentsToPreStage = 1
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store"))
        configuration.attachmentDirectory = directory.appendingPathComponent("attachments")
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)
        let payload = try signedJSON(inlinePayload(manifestID: "movie_1", assets: [(server.url("/doc/movie/master.m3u8"), "hls", 320_000)]))
        let result = try await driver.run(payload: payload, context: nseContext) { _ in }
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertEqual(result.delivery.selectedAssets, 5, "master, two media playlists, a segment of each")
        XCTAssertEqual(result.delivery.readyAssets, 5)
        let paths = Set(try await server.requests().map(\.path))
        XCTAssertEqual(paths, ["/doc/movie/master.m3u8", "/doc/movie/high/index.m3u8", "/doc/movie/audio/index.m3u8",
                               "/doc/movie/high/h0.ts", "/doc/movie/audio/a0.ts"])
        let stored = try fileNames(directory.appendingPathComponent("store"))
        XCTAssertTrue(stored.contains(try storeKey(server.url("/doc/movie/audio/a0.ts")).fileName), "\(stored)")
    }
}
