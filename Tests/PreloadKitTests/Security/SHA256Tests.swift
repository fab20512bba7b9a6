import XCTest
@testable import PreloadKit

/// SHA-256 against the FIPS 180-4 / NIST CSHS example vectors and against Python's hashlib.
final class SHA256Tests: XCTestCase {
    // Expected digests are the published NIST example values (FIPS 180-2 Appendix B, NIST CSRC
    // "SHA256.pdf" examples); re-checked with `python3 -c "import hashlib; print(hashlib.sha256(...).hexdigest())"`.

    func testEmptyMessage() {
        XCTAssertEqual(Hex.encode(SHA256.hash([UInt8]())),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testOneBlockMessageABC() {
        XCTAssertEqual(Hex.encode(SHA256.hash(Array("abc".utf8))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testTwoBlock448BitMessage() {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        XCTAssertEqual(message.utf8.count * 8, 448)
        XCTAssertEqual(Hex.encode(SHA256.hash(Array(message.utf8))),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func test896BitMessage() {
        let message = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
        XCTAssertEqual(Hex.encode(SHA256.hash(Array(message.utf8))),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    }

    func testOneMillionLetterAInThousandByteChunks() {
        let chunk = [UInt8](repeating: 0x61, count: 1000)
        var hasher = SHA256Hasher()
        for _ in 0..<1000 { hasher.update(chunk) }
        XCTAssertEqual(Hex.encode(hasher.finalize()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Streaming must not depend on how the message is cut, nor on whether the input is contiguous
    /// (`Array`) or not (`String.UTF8View`/lazy sequences take the byte-at-a-time path).
    func testStreamingIsIndependentOfChunkingAndInputKind() {
        let seed: UInt64 = 0x5EED_0001
        var rng = CoreRNG(seed: seed)
        for trial in 0..<40 {
            let message = rng.bytes(rng.below(300))
            let oneShot = SHA256.hash(message)
            var hasher = SHA256Hasher()
            var offset = 0
            var useContiguous = true
            while offset < message.count {
                let take = min(message.count - offset, 1 + rng.below(80))
                let piece = message[offset..<(offset + take)]
                if useContiguous { hasher.update(piece) } else { hasher.update(piece.lazy.map { $0 }) }
                useContiguous.toggle()
                offset += take
            }
            XCTAssertEqual(hasher.finalize(), oneShot, "seed \(seed) trial \(trial) length \(message.count)")
        }
    }

    func testFinalizeResetsTheHasher() {
        var hasher = SHA256Hasher()
        hasher.update(Array("something else".utf8))
        _ = hasher.finalize()
        hasher.update(Array("abc".utf8))
        XCTAssertEqual(Hex.encode(hasher.finalize()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    #if os(Linux) || os(macOS)
    /// Random messages (lengths chosen around the 55/56/64-byte padding boundaries and beyond)
    /// hashed here and by Python's hashlib, an independent implementation.
    func testAgreesWithPythonHashlibOnRandomMessages() {
        let seed: UInt64 = 0xC0FF_EE00_2026
        var rng = CoreRNG(seed: seed)
        let boundaryLengths = [0, 1, 55, 56, 57, 63, 64, 65, 111, 119, 120, 127, 128, 129, 1000, 4097]
        var messages: [[UInt8]] = boundaryLengths.map { rng.bytes($0) }
        for _ in 0..<100 { messages.append(rng.bytes(rng.below(600))) }
        let script = """
            import sys, hashlib
            for line in sys.stdin.read().split("\\n"):
                if line == "": continue
                print(hashlib.sha256(bytes.fromhex(line.strip("."))).hexdigest())
            """
        // Each message is wrapped in dots so an empty message is still a non-empty line.
        let input = messages.map { "." + Hex.encode($0) + "." }.joined(separator: "\n") + "\n"
        guard let output = runPython(script, input: input) else { return }
        let expected = output.split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, messages.count, "seed \(seed): python returned \(expected.count) digests")
        for (index, message) in messages.enumerated() where index < expected.count {
            XCTAssertEqual(Hex.encode(SHA256.hash(message)), expected[index],
                "seed \(seed) message #\(index) length \(message.count)")
        }
    }
    #endif
}
