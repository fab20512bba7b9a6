import XCTest
import SimKernel
@testable import InfraModel

final class InfraEventTests: XCTestCase {
    /// Every case encodes to the raw (kind, target, payload) the model has always scheduled, and
    /// decodes back to itself.
    func testEncodingIsTheFixedRawNumbersAndRoundTrips() {
        let r = RequestID(rawValue: 7), f = FetchID(rawValue: 9), n = NodeID(rawValue: 3)
        let cases: [(InfraEvent, UInt16, UInt32, UInt64)] = [
            (.requestAtEdge(r), 0x0100, 7, 0), (.responseAtDevice(r), 0x0101, 7, 0),
            (.linkCompletion(LinkID(rawValue: 4)), 0x0102, 4, 0), (.transferDone(r), 0x0103, 7, 0),
            (.requestTimeout(r), 0x0104, 7, 0), (.fetchAtParent(f), 0x0105, 9, 0), (.fetchResponse(f), 0x0106, 9, 0),
            (.originServiceDone(f), 0x0107, 0, 9), (.warmAtNode(n, ObjectID(rawValue: 11)), 0x0108, 3, 11),
            (.backgroundRequest(n), 0x0109, 3, 0),
        ]
        for (e, kind, target, payload) in cases {
            let event = e.event(at: .seconds(2))
            XCTAssertEqual(event, Event(time: .seconds(2), kind: EventKind(kind), target: target, payload: payload), "\(e)")
            XCTAssertEqual(InfraEvent(event), e)
            XCTAssertTrue(InfraEventKind.range.contains(kind))
        }
    }

    /// A kind outside the ten (inside or outside the module's range) decodes to nil, and the world
    /// refuses it.
    func testUnknownKindsAreRefusedAtDecoding() throws {
        for kind: UInt16 in [0x0001, 0x00FF, 0x010A, 0x01FF, 0x0200] {
            XCTAssertNil(InfraEvent(Event(time: .zero, kind: EventKind(kind), target: 0)))
        }
        var world = try InfraWorld(config: deterministicConfig(), catalog: ObjectCatalog(), masterSeed: 1)
        var kernel = Kernel()
        XCTAssertThrowsError(try world.handle(Event(time: .zero, kind: EventKind(0x010A), target: 0), in: &kernel))
    }
}
