import InfraModel

// See PreloadKitAliases.swift: InfraModel's types that share a name with PreloadKit's.

/// InfraModel's access-network class (what the network model simulates).
typealias InfraNetworkClass = NetworkClass
/// InfraModel's device request.
typealias InfraFetchRequest = FetchRequest
/// A scheduled fault of the infrastructure (`infra.faults[]`), as the layers above PushModel name it.
package typealias ScheduledFault = InfraFault
