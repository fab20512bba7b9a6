import XCTest
@testable import PreloadKit

/// HMAC-SHA256 against RFC 4231 §4.2–4.8 and Python's hmac module.
final class HMACSHA256Tests: XCTestCase {
    private struct Case {
        let name: String
        let key: [UInt8]
        let data: [UInt8]
        /// Expected HMAC-SHA-256 from RFC 4231 (test case 5 publishes only the first 128 bits).
        let expectedHex: String
    }

    private let rfc4231Cases: [Case] = [
        Case(name: "RFC 4231 test case 1", key: [UInt8](repeating: 0x0b, count: 20), data: Array("Hi There".utf8),
            expectedHex: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Case(name: "RFC 4231 test case 2", key: Array("Jefe".utf8), data: Array("what do ya want for nothing?".utf8),
            expectedHex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Case(name: "RFC 4231 test case 3", key: [UInt8](repeating: 0xaa, count: 20),
            data: [UInt8](repeating: 0xdd, count: 50),
            expectedHex: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Case(name: "RFC 4231 test case 4", key: Array(1...25), data: [UInt8](repeating: 0xcd, count: 50),
            expectedHex: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Case(name: "RFC 4231 test case 5 (truncated to 128 bits)", key: [UInt8](repeating: 0x0c, count: 20),
            data: Array("Test With Truncation".utf8), expectedHex: "a3b6167473100ee06e0c796c2955552b"),
        Case(name: "RFC 4231 test case 6 (131-byte key)", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            expectedHex: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Case(name: "RFC 4231 test case 7 (131-byte key, long data)", key: [UInt8](repeating: 0xaa, count: 131),
            data: Array(("This is a test using a larger than block-size key and a larger than block-size data."
                + " The key needs to be hashed before being used by the HMAC algorithm.").utf8),
            expectedHex: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    func testRFC4231Vectors() {
        for testCase in rfc4231Cases {
            let mac = HMACSHA256.mac(key: testCase.key, message: testCase.data)
            XCTAssertEqual(mac.count, 32, testCase.name)
            let expectedByteCount = testCase.expectedHex.utf8.count / 2
            XCTAssertEqual(Hex.encode(Array(mac.prefix(expectedByteCount))), testCase.expectedHex, testCase.name)
            if expectedByteCount == 32 {
                XCTAssertTrue(HMACSHA256.isValid(mac: Hex.decode(testCase.expectedHex), key: testCase.key,
                    message: testCase.data), testCase.name)
            }
        }
    }

    func testIsValidRejectsTamperedTruncatedAndWrongKey() {
        let key = Array("Jefe".utf8)
        let message = Array("what do ya want for nothing?".utf8)
        let good = Hex.decode("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        XCTAssertTrue(HMACSHA256.isValid(mac: good, key: key, message: message))
        for index in [0, 15, 31] {
            var flipped = good
            flipped[index] ^= 0x01
            XCTAssertFalse(HMACSHA256.isValid(mac: flipped, key: key, message: message), "bit flip at byte \(index)")
        }
        XCTAssertFalse(HMACSHA256.isValid(mac: Array(good.prefix(16)), key: key, message: message), "truncated MAC")
        XCTAssertFalse(HMACSHA256.isValid(mac: good + [0], key: key, message: message), "extended MAC")
        XCTAssertFalse(HMACSHA256.isValid(mac: [], key: key, message: message), "empty MAC")
        XCTAssertFalse(HMACSHA256.isValid(mac: good, key: Array("Jeff".utf8), message: message), "wrong key")
        XCTAssertFalse(HMACSHA256.isValid(mac: good, key: key, message: message + [0x21]), "changed message")
    }

    func testConstantTimeEquals() {
        XCTAssertTrue(HMACSHA256.constantTimeEquals([], []))
        XCTAssertTrue(HMACSHA256.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(HMACSHA256.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(HMACSHA256.constantTimeEquals([0, 2, 3], [1, 2, 3]))
        XCTAssertFalse(HMACSHA256.constantTimeEquals([1, 2], [1, 2, 3]))
    }

    #if os(Linux) || os(macOS)
    /// Random keys (empty, shorter than, equal to and longer than the 64-byte block) and messages,
    /// MACed here and by Python's hmac + hashlib.
    func testAgreesWithPythonHMACOnRandomInputs() {
        let seed: UInt64 = 0x4D41_4301
        var rng = CoreRNG(seed: seed)
        let keyLengths = [0, 1, 20, 32, 63, 64, 65, 131, 200]
        var pairs: [(key: [UInt8], message: [UInt8])] = []
        for keyLength in keyLengths {
            for _ in 0..<6 { pairs.append((rng.bytes(keyLength), rng.bytes(rng.below(300)))) }
        }
        for _ in 0..<40 { pairs.append((rng.bytes(rng.below(150)), rng.bytes(rng.below(2000)))) }
        let script = """
            import sys, hmac, hashlib
            for line in sys.stdin.read().split("\\n"):
                if line == "": continue
                key, message = line.split(" ")
                print(hmac.new(bytes.fromhex(key.strip(".")), bytes.fromhex(message.strip(".")), hashlib.sha256).hexdigest())
            """
        let input = pairs.map { "." + Hex.encode($0.key) + ". ." + Hex.encode($0.message) + "." }
            .joined(separator: "\n") + "\n"
        guard let output = runPython(script, input: input) else { return }
        let expected = output.split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, pairs.count, "seed \(seed): python returned \(expected.count) MACs")
        for (index, pair) in pairs.enumerated() where index < expected.count {
            let mac = HMACSHA256.mac(key: pair.key, message: pair.message)
            XCTAssertEqual(Hex.encode(mac), expected[index],
                "seed \(seed) pair #\(index) key \(pair.key.count) B message \(pair.message.count) B")
            XCTAssertTrue(HMACSHA256.isValid(mac: Hex.decode(expected[index]), key: pair.key, message: pair.message),
                "seed \(seed) pair #\(index)")
        }
    }
    #endif
}
