import PreloadKit

// PreloadKit and InfraModel both export `NetworkClass` and `FetchRequest`, and the module
// `PreloadKit` contains an enum `PreloadKit`, so `PreloadKit.NetworkClass` does not resolve.
// This file imports PreloadKit alone and names its types unambiguously for the rest of the module.

/// PreloadKit's network class (what the device reports to the session).
typealias PKNetworkClass = NetworkClass
/// PreloadKit's fetch request (`Action.startFetch`).
typealias PKFetchRequest = FetchRequest
