import Foundation
import XCTest
@testable import PrestageCLI
@testable import ScenarioFormat

/// A scenario that leaves an optional section out encodes (and so hashes) as before the section
/// existed: none of its keys is written. Checked for every library scenario against every such
/// section but the ones the scenario uses.
final class LibraryEncodesAsBeforeTests: XCTestCase {
    /// Each optional section: the keys it writes when used, and the library scenarios using it.
    static let sections: [(name: String, keys: [String], usedBy: Set<String>)] = [
        ("the campaign calendar", ["utcOffsetSeconds", "sendAtLocalSeconds", "sendOnLocalDay", "audience"], ["time-zone-waves", "black-friday-day"]),
        ("the push providers", ["provider", "providers"], ["shared-fcm-quota", "black-friday-day", "provider-day", "offline-overnight", "topic-fanout",
                                                  "live-score-updates"]),
        ("offline windows and storage rules", ["offline", "collapsible", "inactiveShare"], ["offline-overnight", "live-score-updates"]),
        ("FCM topic fan-out and APNs priority 5", ["sendAs", "apnsPriority", "fanOutPerSecond", "priority5BurstIntervalSeconds"], ["topic-fanout"]),
        ("FCM per-device limits", ["collapsible", "deviceMessagesPerMinuteMax", "deviceMessagesPerHourMax", "collapsibleBurstMessages",
                                   "collapsibleRefillSeconds"], ["offline-overnight", "live-score-updates"]),
        ("FCM collapse keys", ["collapseKey"], ["live-score-updates"]),
        ("the CDN API profile", ["cdnApi"], ["purge-on-cloudflare"]),
        ("HLS playlists of variants", ["variantsKbps", "segmentSeconds", "segmentCount", "hlsSegmentsToPreStage", "audioKbps"], ["hls-trailer", "hls-trailer-byteranges"]),
        ("HLS byte ranges", ["hlsByteRanges"], ["hls-trailer-byteranges"]),
    ]

    func testScenariosWithoutASectionEncodeAsBefore() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        var checked = 0
        for entry in library.entries() {
            let scenario = try ScenarioLoader.load(entry.url.path, library: library).scenario
            let text = String(decoding: try CanonicalJSON.encode(scenario), as: UTF8.self)
            for section in Self.sections where !section.usedBy.contains(entry.name) {
                for key in section.keys {
                    XCTAssertFalse(text.contains("\"\(key)\""), "\(entry.name) does not use \(section.name) but writes \"\(key)\"")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 4 * 20, "every section against the library's scenarios")
    }

    /// The scenarios named as users exist and do write a key of their section (so a renamed
    /// scenario or key cannot leave the check above vacuous).
    func testEveryNamedUserWritesItsSection() throws {
        let library = ScenarioLibrary(directories: [TestEnvironment.repositoryScenarios])
        for section in Self.sections {
            for name in section.usedBy.sorted() {
                let scenario = try ScenarioLoader.load(name, library: library).scenario
                let text = String(decoding: try CanonicalJSON.encode(scenario), as: UTF8.self)
                XCTAssertTrue(section.keys.contains { text.contains("\"\($0)\"") }, "\(name) uses \(section.name)")
            }
        }
    }
}
