/// Conditional revalidation of stored entries (RFC 9110 §13.1.2 `If-None-Match`, §15.4.5 304;
/// RFC 9111 §4.3.4 freshening a stored response).
extension PreloadSession {
    /// The validator of the stored entry an asset fetch revalidates, if it has one.
    func storedValidator(_ purpose: FetchPurpose) -> EntityTag? {
        guard case .asset(let key) = purpose, let i = store.index(of: key) else { return nil }
        return store.entries[i].etag
    }
}
