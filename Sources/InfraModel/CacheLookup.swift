/// The cache key of a device request (the lookups themselves are ``NodeCaches``').
extension InfraWorld {
    /// The key of `object` requested with signed token `token`: the object alone, or with the
    /// token in the high half when `cacheKeyIncludesSignedToken` (the key never has the top bit,
    /// which marks background objects).
    @inline(__always)
    func cacheKey(object: UInt32, token: UInt32) -> UInt64 {
        if !config.cacheKeyIncludesSignedToken { return UInt64(object) }
        return UInt64(object) | (UInt64(token % 0x7FFF_FFFE) + 1) << 32
    }
}
