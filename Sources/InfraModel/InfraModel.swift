// Placeholder so the target builds before its issue lands; replaced by the real module.
