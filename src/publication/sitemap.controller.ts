import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiGetDocument } from '../common/openapi/api-docs.decorators.js';
import { NegotiatedRepresentations, ServesDocument } from '../common/resource/negotiated.js';
import type { RenderedDocument } from '../common/resource/rendered-document.js';
import { ParseIdPipe } from '../common/validation/validation.pipe.js';
import { SitemapService } from './sitemap.service.js';

/** GET /sitemap.xml, /sitemaps/{n} and /robots.txt: documents of one type each, cached and conditional like every anonymous read. */
@ApiTags('publication')
@NegotiatedRepresentations()
@Controller()
export class SitemapController {
  constructor(private readonly sitemaps: SitemapService) {}

  @Get('sitemap.xml')
  @ServesDocument()
  @ApiOperation({
    summary: 'The sitemap (sitemaps.org 0.9): the home page, every public post (PUBLIC_POST_URL, lastmod) and every tag a public post carries',
    description: 'Past SITEMAP_MAX_URLS URLs in all, a sitemap index of /sitemaps/{n} pages of at most that many each.',
  })
  @ApiGetDocument('application/xml', 'A urlset, or past SITEMAP_MAX_URLS a sitemapindex')
  sitemap(): Promise<RenderedDocument> {
    return this.sitemaps.sitemap();
  }

  @Get('sitemaps/:n')
  @ServesDocument()
  @ApiOperation({ summary: 'A page of the sitemap index (from 1; while /sitemap.xml is no index, page 1 is the same urlset); 404 past the last page' })
  @ApiGetDocument('application/xml', 'A urlset of at most SITEMAP_MAX_URLS URLs', 404)
  page(@Param('n', ParseIdPipe) page: number): Promise<RenderedDocument> {
    return this.sitemaps.page(page);
  }

  @Get('robots.txt')
  @ServesDocument()
  @ApiOperation({ summary: 'robots.txt: every path allowed, and the absolute address of /sitemap.xml' })
  @ApiGetDocument('text/plain', 'User-agent: *, Allow: /, Sitemap: {PUBLIC_BASE_URL}/sitemap.xml')
  robots(): RenderedDocument {
    return this.sitemaps.robots();
  }
}
