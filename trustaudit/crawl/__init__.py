"""The crawler: URL lists -> polite, SSRF-guarded, resumable fetches -> a record source.

Public entry points: `crawl_urls` (fetch into `RUN/crawl/`), `CrawlSource` (read the committed crawl
as records for the pipeline), `read_url_list` (the .txt/.csv/stdin list format).
"""

from __future__ import annotations

from trustaudit.crawl.crawler import CrawlProgress, CrawlStats, crawl_urls
from trustaudit.crawl.source import CrawlSource, read_url_list

__all__ = ["CrawlProgress", "CrawlSource", "CrawlStats", "crawl_urls", "read_url_list"]
