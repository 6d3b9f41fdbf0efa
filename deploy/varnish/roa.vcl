#
# roa.vcl — Varnish 7 gateway cache in front of a roa service.
#
# Requires vmod_xkey (Debian/Ubuntu package "varnish-modules"); vmod_std,
# vmod_purge and vmod_proxy ship with Varnish itself. Compile-check with:
#   varnishd -C -f deploy/varnish/roa.vcl > /dev/null
#
# Two blocks are meant to be edited per deployment (test/helpers/varnish.ts
# rewrites exactly these two when it renders the file for a test):
#   - backend default: where the roa service listens (default 127.0.0.1:3000);
#   - acl purgers: who may send PURGE (default loopback only).
# TLS is terminated in front of Varnish by hitch (deploy/hitch/), which speaks
# PROXY v2 to a second listen address: varnishd -a 127.0.0.1:6086,PROXY.
# See README.md next to this file.
#
vcl 4.1;

import proxy;
import purge;
import std;
import xkey;

backend default {
    .host = "127.0.0.1";
    .port = "3000";
    .connect_timeout = 2s;
    .first_byte_timeout = 30s;
    .between_bytes_timeout = 10s;
}

# Addresses allowed to invalidate: the roa service's Purger connects from here.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    # Internal flags travel in request headers; never trust a client's copy.
    # (A URL PURGE restarts once, carrying its count: roa_purge_next.)
    if (req.restarts == 0) {
        unset req.http.x-roa-purged;
    }

    # How the client reached Varnish, for roa, which believes X-Forwarded-*
    # from loopback proxies (--trust-proxy, default loopback): https only when
    # the connection came through the PROXY listener from a TLS terminator that
    # said so in its PROXY v2 header (hitch's SSL TLV, read by vmod_proxy);
    # http on the plain listener, where proxy.is_ssl() is false. What a client
    # sent is overwritten or dropped: otherwise a client on plain HTTP could
    # claim https (roa refuses credentials over plain HTTP in production) or
    # name any host for the absolute URLs roa builds (and Varnish caches).
    if (proxy.is_ssl()) {
        set req.http.X-Forwarded-Proto = "https";
    } else {
        set req.http.X-Forwarded-Proto = "http";
    }
    unset req.http.X-Forwarded-Host;
    unset req.http.Forwarded;

    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (req.http.xkey) {
            # Tag purge: vmod_xkey drops every object whose xkey response
            # header named any of these space-separated keys, whatever its
            # URL, query string or Vary variant.
            set req.http.x-roa-purged = xkey.purge(req.http.xkey);
            if (req.http.x-roa-purged == "0") {
                return (synth(404, "Not in cache"));
            }
            return (synth(200, "Purged"));
        }
        # URL purge: look the URL up and purge it from vcl_hit/vcl_miss with
        # vmod_purge, which drops all Vary variants like return(purge) does but
        # also reports how many, so an empty purge can answer 404 as roa's
        # embedded gateway does. A URL is stored once per scheme (vcl_hash):
        # the http copy first, then, after one restart, the https copy.
        if (req.restarts == 0) {
            set req.http.X-Forwarded-Proto = "http";
        } else {
            set req.http.X-Forwarded-Proto = "https";
        }
        return (hash);
    }

    call vcl_req_host;

    # RFC 9110 9.2.1: only safe methods are served from cache; everything
    # else (including PATCH and extension methods) goes to the service, and
    # is passed rather than piped so X-Cache and keep-alive still work.
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }

    # Credentials make a response user-specific (RFC 9111 3.5). roa's HMAC
    # scheme uses the non-standard "Authentication" header, so it is listed.
    if (req.http.Authorization || req.http.Authentication || req.http.Cookie) {
        return (pass);
    }

    # roa's article service answers Vary: Accept and produces three media
    # types: XML (its default), JSON and HTML (the browsable pages). Keying
    # the cache on the raw Accept would store one copy per browser/client
    # spelling, so collapse it to the type roa would pick: the first of the
    # three the client lists (q-values are not weighed, unlike roa's embedded
    # gateway; clients list their preference first in practice), text/* as
    # HTML, and XML when Accept is absent, */* or application/*. A browser's
    # text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8 thus
    # gets HTML, as from roa itself, and curl's */* gets XML. RFC 9110
    # 12.5.1. An Accept naming none of them is left alone so roa can answer
    # 406 itself. The lookahead keeps application/json-seq from counting as
    # JSON and text/html-sandboxed from counting as HTML.
    if (!req.http.Accept || req.http.Accept ~ "^\s*$") {
        set req.http.Accept = "application/xml";
    } else if (req.http.Accept ~ "(?i)(application/json|application/xml|text/html)\s*(;|,|$)") {
        set req.http.Accept = regsub(req.http.Accept,
            "(?i)^.*?(application/json|application/xml|text/html)(?=\s*(;|,|$)).*$", "\1").lower();
    } else if (req.http.Accept ~ "(?i)(^|,)\s*text/\*") {
        set req.http.Accept = "text/html";
    } else if (req.http.Accept ~ "(?i)(^|,)\s*(\*/\*|application/\*)") {
        set req.http.Accept = "application/xml";
    }

    return (hash);
}

sub vcl_hash {
    # Key on the URL alone: this cache fronts one roa service, and the Purger
    # reaches each node by its internal address, so the Host it sends differs
    # from the public one clients use. (Add hash_data(req.http.host) for a
    # multi-site cache and give the Purger the public host.)
    hash_data(req.url);
    # The scheme, so a response built for https (HSTS, https links) is never
    # served over http, nor the other way round.
    hash_data(req.http.X-Forwarded-Proto);
    return (lookup);
}

sub roa_purge_url {
    set req.http.x-roa-purged = std.integer(req.http.x-roa-purged, 0) + purge.hard();
    call roa_purge_next;
}

# After the http copy, restart to purge the https one; then answer with the
# total, 404 when neither scheme had anything.
sub roa_purge_next {
    if (req.restarts == 0) {
        return (restart);
    }
    if (std.integer(req.http.x-roa-purged, 0) == 0) {
        set req.http.x-roa-purged = "0";
        return (synth(404, "Not in cache"));
    }
    return (synth(200, "Purged"));
}

sub vcl_hit {
    if (req.method == "PURGE") {
        call roa_purge_url;
    }
}

sub vcl_miss {
    if (req.method == "PURGE") {
        call roa_purge_url;
    }
}

sub vcl_pass {
    # Only reachable for PURGE when a hit-for-pass object sits on the URL;
    # there is nothing stored to drop under this scheme, and a PURGE must
    # never reach the service.
    if (req.method == "PURGE") {
        call roa_purge_next;
    }
}

sub vcl_backend_response {
    if (bereq.uncacheable) {
        return (deliver);
    }
    # vmod_xkey indexes the stored object's "xkey" header; accept the
    # Fastly-style Surrogate-Key spelling as well.
    if (beresp.http.Surrogate-Key && !beresp.http.xkey) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }
    # The TTL Varnish derived from s-maxage / max-age / Expires (RFC 9111
    # 4.2.1) is kept as is. A response that states no freshness at all is not
    # stored: Varnish's default_ttl would be a guess, and a resource API must
    # opt in to shared caching explicitly.
    if (!beresp.http.Cache-Control && !beresp.http.Expires) {
        call vcl_beresp_hitmiss;
    }
    # Builtin rules: ttl <= 0, Set-Cookie, Cache-Control private / no-store /
    # no-cache (RFC 9111 5.2.2), Vary: * all become hit-for-miss, so later
    # requests go to the service without queueing behind each other.
    call vcl_builtin_backend_response;
    return (deliver);
}

sub vcl_deliver {
    # obj.hits counts deliveries of this object from cache; 0 means it was
    # just fetched (miss) or passed.
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # Surrogate keys are for caches, not clients.
    unset resp.http.xkey;
    unset resp.http.Surrogate-Key;
}

sub vcl_synth {
    if (req.method == "PURGE") {
        if (req.http.x-roa-purged) {
            set resp.http.x-roa-purged = req.http.x-roa-purged;
        }
        set resp.http.Content-Type = "text/plain; charset=utf-8";
        set resp.body = resp.reason + {"
"};
        return (deliver);
    }
}
