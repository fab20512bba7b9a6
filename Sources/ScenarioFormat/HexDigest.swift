import Foundation
import enum PreloadKit.SHA256

/// Lower-case hexadecimal text of `bytes`, two digits per byte: the one hex encoder of the scenario
/// hashes, sweep hashes and bench fingerprints.
package func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
}

/// Lower-case hex of the SHA-256 of `data`.
func hexDigest(_ data: Data) -> String {
    hexString(SHA256.hash(data))
}
