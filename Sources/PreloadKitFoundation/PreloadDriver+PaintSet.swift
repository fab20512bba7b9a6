import Foundation
import PreloadKit

extension PreloadDriver {
    /// What the screen a tap opens needs, and which of it is on disk now: PreloadKit's
    /// `PreloadStore.paintSetAnswer(for:network:now:)` over the store as persisted (every critical
    /// asset of `request`, resolved for `network`, selected for pre-staging or not; an asset the
    /// session did not pre-stage is still needed on screen and missing ones are the app's to
    /// fetch). Read-only like `tap(request:context:configuration:)`: it neither repairs nor writes
    /// the directory and needs no `PreloadDriver`; files missing behind the index's back, entries
    /// dated in the future and an unreadable index count as missing.
    /// - Throws: `.invalidPolicy` / `.invalidConfiguration` for an out-of-range configuration.
    /// - Complexity: reads the index file (at most `indexBytesMax`) and stats each entry's file.
    public static func paintSet(request: PreStageRequest, network: NetworkClass,
                                configuration: PreloadDriverConfiguration) throws(PreloadDriverError) -> TapAnswer {
        try configuration.validate()
        let now = DriverClock().now()
        let (store, _) = fileStore(configuration, token: "tap").load(now: now)
        return store.paintSetAnswer(for: request, network: network, now: now)
    }

    /// `paintSet(request:network:configuration:)` for a push's JSON, parsed and verified with
    /// `configuration.payloadOptions`.
    /// - Throws: `.payloadRejected`, `.invalidPolicy`, `.invalidConfiguration`.
    public static func paintSet(payload: Data, network: NetworkClass,
                                configuration: PreloadDriverConfiguration) throws(PreloadDriverError) -> TapAnswer {
        try paintSet(request: parsed(payload, configuration), network: network, configuration: configuration)
    }
}
