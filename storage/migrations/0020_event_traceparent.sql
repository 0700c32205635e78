-- 0020_event_traceparent: the W3C trace context of the write that emitted
-- an event, so that its webhook deliveries continue the write's trace.
-- NULL for events written before, or outside a request. No default and no
-- check: adding the column rewrites and scans nothing.
ALTER TABLE events ADD COLUMN traceparent text;
