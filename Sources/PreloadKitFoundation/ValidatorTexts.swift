import Foundation
import PreloadKit

/// The `ETag` texts behind PreloadKit's `EntityTag` fingerprints: the transport records each one
/// it receives, sends the text of a revalidation's `ifNoneMatch` as `If-None-Match`, and the file
/// store writes the text of each entry's tag into its index (and records it again at load).
///
/// Thread safety: behind `lock` (the transport's delegate queue and the driver's actor use it).
final class ValidatorTexts: @unchecked Sendable {
    /// Most texts kept (one per distinct tag seen; far above a store's entries).
    static let countMax = 4_096
    /// Longer `ETag` values are not kept (their entry is then stored without a validator).
    static let textBytesMax = 256

    private let lock = NSLock()
    private var texts: [UInt64: String] = [:]

    /// The tag of `text`, recorded; nil for an over-long value or when the table is full.
    func record(_ text: String) -> EntityTag? {
        guard text.utf8.count <= Self.textBytesMax else { return nil }
        let tag = EntityTag(text)
        lock.lock()
        defer { lock.unlock() }
        if texts[tag.fingerprint] == nil && texts.count >= Self.countMax { return nil }
        texts[tag.fingerprint] = text
        return tag
    }

    /// The text recorded for `tag`, if any.
    func text(for tag: EntityTag) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return texts[tag.fingerprint]
    }
}
