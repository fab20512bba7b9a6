import Foundation
import PreloadKit
@testable import PreloadKitFoundation
import XCTest

/// `PreloadDriver` pre-staging an HLS media playlist whose initialization section and segments are
/// byte ranges of one fragmented-MP4 file (`#EXT-X-MAP` `BYTERANGE`, `#EXT-X-BYTERANGE`), against
/// the loopback server, which honours `Range` (206 with `Content-Range`).
final class PreloadDriverByteRangeTests: DriverFixtureTestCase {
    /// An ISO BMFF box of `size` bytes of type `type` (4 ASCII letters), its payload starting with
    /// `brand` (an `ftyp`'s major brand) and then filler derived from `seed`.
    static func box(_ type: String, size: Int, brand: String = "msdh", seed: UInt8) -> [UInt8] {
        let header: [UInt8] = [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        let head = header + Array(type.utf8) + Array(brand.utf8)
        return head + (head.count..<size).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ Int(seed)) }
    }

    /// The file: an `ftyp` initialization section then three `styp`-led segments.
    static let initBytes = 1_200
    static let segmentBytes = [9_000, 7_500, 8_200]
    static let file: [UInt8] = box("ftyp", size: initBytes, brand: "isom", seed: 1)
        + segmentBytes.enumerated().flatMap { box("styp", size: $0.element, seed: UInt8(10 + $0.offset)) }

    /// The playlist: the first segment's offset stated, the next ones implied (RFC 8216 §4.3.2.2),
    /// `file` the segments' URI (with a query, e.g. to ask the server to ignore `Range`).
    static func playlist(file: String) -> String {
        """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:2
        #EXT-X-MAP:URI="\(file)",BYTERANGE="\(initBytes)@0"
        #EXTINF:0.1,
        #EXT-X-BYTERANGE:\(segmentBytes[0])@\(initBytes)
        \(file)
        #EXTINF:0.1,
        #EXT-X-BYTERANGE:\(segmentBytes[1])
        \(file)
        #EXTINF:0.1,
        #EXT-X-BYTERANGE:\(segmentBytes[2])
        \(file)
        #EXT-X-ENDLIST

        """
    }

    func driver(segments: Int) throws -> PreloadDriver {
        var policy = try testPolicy()
        policy.hls.isEnabled = true
        policy.hls.segmentsToPreStage = segments
        var configuration = PreloadDriverConfiguration(policy: policy, storeDirectory: directory.appendingPathComponent("store"))
        configuration.attachmentDirectory = directory.appendingPathComponent("attachments")
        let driver = try PreloadDriver(configuration: configuration)
        drivers.append(driver)
        return driver
    }

    /// The playlist, then three range requests against the one file (the initialization section and
    /// the first two segments, offsets followed through the implied one), each stored as its own
    /// entry holding exactly that range's bytes under `AssetURL.storeKey(range:)`; the store
    /// counts the stored bytes, not the file's.
    func testByteRangePlaylistIsPreStagedAsOneEntryPerRange() async throws {
        try await server.putDocument("clip/index.m3u8", Data(Self.playlist(file: "main.mp4").utf8))
        try await server.putDocument("clip/main.mp4", Data(Self.file))
        let driver = try driver(segments: 2)
        let payload = try signedJSON(inlinePayload(manifestID: "clip_1", assets: [(server.url("/doc/clip/index.m3u8"), "hls", 320_000)]))
        let result = try await driver.run(payload: payload, context: nseContext) { _ in }
        XCTAssertEqual(result.delivery.reason, .assetsSettled)
        XCTAssertEqual(result.delivery.selectedAssets, 4, "playlist, initialization section, two segments")
        XCTAssertEqual(result.delivery.readyAssets, 4)
        XCTAssertTrue(result.fetches.allSatisfy { $0.state.isStored }, "\(result.fetches)")

        let log = try await server.requests()
        let i = Self.initBytes, s0 = Self.segmentBytes[0], s1 = Self.segmentBytes[1]
        XCTAssertEqual(log.map(\.path), ["/doc/clip/index.m3u8", "/doc/clip/main.mp4", "/doc/clip/main.mp4", "/doc/clip/main.mp4"])
        XCTAssertEqual(log.map(\.range), [nil, "bytes=0-\(i - 1)", "bytes=\(i)-\(i + s0 - 1)", "bytes=\(i + s0)-\(i + s0 + s1 - 1)"],
                       "the implied offset follows the previous segment's range")

        let fileURL = try AssetURL.parse(server.url("/doc/clip/main.mp4"), policy: loopbackOptions().urlPolicy)
        let ranges = [(0, i), (i, s0), (i + s0, s1)].map { ByteRange(offset: Int64($0.0), length: Int64($0.1))! }
        let store = directory.appendingPathComponent("store")
        for range in ranges {
            let key = fileURL.storeKey(range: range)
            XCTAssertNotEqual(key, fileURL.storeKey, "a range's key is not the file's")
            let stored = try Data(contentsOf: store.appendingPathComponent(key.fileName))
            XCTAssertEqual(Array(stored), Array(Self.file[Int(range.offset)...Int(range.lastByte)]), "\(range)")
            let file = await driver.storedFile(for: key)
            XCTAssertEqual(file?.lastPathComponent, key.fileName, "the app's player finds the range by its key")
        }
        let playlistBytes = Int64(Self.playlist(file: "main.mp4").utf8.count)
        let used = await driver.store.usedBytes
        XCTAssertEqual(used, playlistBytes + Int64(i + s0 + s1), "only the ranges' bytes are stored and counted")
        XCTAssertNil(try? Data(contentsOf: store.appendingPathComponent(fileURL.storeKey.fileName)), "the whole file is never stored")
    }

    /// A server that ignores `Range` answers 200 with the whole file: each range fetch is refused
    /// at its headers (`.rangeIgnored`), nothing of the file is stored, and the push is delivered
    /// with the playlist alone ready.
    func testAServerIgnoringRangeIsRefusedNotStored() async throws {
        try await server.putDocument("plain/index.m3u8", Data(Self.playlist(file: "main.mp4?ignore-range=1").utf8))
        try await server.putDocument("plain/main.mp4", Data(Self.file))
        let driver = try driver(segments: 1)
        let payload = try signedJSON(inlinePayload(manifestID: "plain_1", assets: [(server.url("/doc/plain/index.m3u8"), "hls", 320_000)]))
        let result = try await driver.run(payload: payload, context: nseContext) { _ in }
        XCTAssertEqual(result.delivery.selectedAssets, 3)
        XCTAssertEqual(result.delivery.readyAssets, 1, "the playlist only")
        XCTAssertEqual(result.fetches.count, 3)
        XCTAssertTrue(result.fetches[0].state.isStored)
        for f in result.fetches.dropFirst() { XCTAssertEqual(f.state, .rejected(.rangeIgnored), "\(f)") }
        let used = await driver.store.usedBytes
        XCTAssertEqual(used, Int64(Self.playlist(file: "main.mp4?ignore-range=1").utf8.count))
        let log = try await server.requests()
        XCTAssertEqual(log.dropFirst().map(\.range), ["bytes=0-\(Self.initBytes - 1)", "bytes=\(Self.initBytes)-\(Self.initBytes + Self.segmentBytes[0] - 1)"])
    }
}
