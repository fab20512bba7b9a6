/// The cache key of a device request (the lookups themselves are ``NodeCaches``').
extension InfraWorld {

    @inline(__always)
    func cacheKey(object: UInt32, token: UInt32) -> UInt64 {
        if !config.cacheKeyIncludesSignedToken { return UInt64(object) }
        return UInt64(object) | (UInt64(token % 0x7FFF_FFFE) + 1) << 32
    }
}
