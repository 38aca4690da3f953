// The statistics snapshots (GET /api/stats, one every metricsInterval) drawn as charts on the admin overview: files
// and short URLs, storage used, views, over a chosen span. Each chart is a figure whose caption says in words what
// it shows and where the series ends, for those who do not see the drawing. Fewer than two snapshots draw no line
// (one point says nothing about a change): the page says when the next one comes instead.
import '@mantine/charts/styles.css';
import { AreaChart, LineChart } from '@mantine/charts';
import { Card, Group, SegmentedControl, SimpleGrid, Skeleton, Stack, Text } from '@mantine/core';
import { useMemo, useState, type ReactNode } from 'react';
import { ApiRequestError } from '../../api/client';
import { IconChartLine } from '@tabler/icons-react';
import { EmptyCard } from '../../components/EmptyCard';
import { ErrorAlert } from '../../components/ErrorAlert';
import { formatBytes, formatDate } from '../../lib/format';
import { useApi } from '../../lib/use-api';
import { statsSeries, type Metric, type SnapshotSchedule } from './admin-api';

const DAY = 86_400_000;

const SPANS = [
  { value: '1', label: 'Day' },
  { value: '7', label: 'Week' },
  { value: '30', label: 'Month' },
  { value: 'all', label: 'All' },
] as const;

type Span = (typeof SPANS)[number]['value'];

interface Point {
  date: string;
  files: number;
  urls: number;
  storage: number;
  fileViews: number;
  urlViews: number;
}

const count = (n: number) => n.toLocaleString();

/** recharts' keyboard layer would make the hidden drawing focusable; the figure's caption carries its content. */
const NO_KEYBOARD_LAYER = { accessibilityLayer: false };

function pointsOf(metrics: Metric[], span: Span): Point[] {
  const label = new Intl.DateTimeFormat(undefined, {
    ...(span === '1' ? {} : { month: 'short', day: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
  });
  // The API answers newest first; a chart reads left to right.
  return [...metrics].reverse().map((m) => ({
    date: label.format(new Date(m.createdAt)),
    files: m.data.files,
    urls: m.data.urls,
    storage: m.data.storage,
    fileViews: m.data.fileViews,
    urlViews: m.data.urlViews,
  }));
}

/** "3 files now (+2 since Jan 1, 12:00)": the last value and the change over the span shown. */
function summary(points: Point[], key: keyof Omit<Point, 'date'>, format: (n: number) => string, what: string) {
  const first = points[0]!;
  const last = points.at(-1)!;
  const change = last[key] - first[key];
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  const absolute = format(Math.abs(change));
  return `${what}: ${format(last[key])} at ${last.date} (${sign}${absolute} since ${first.date})`;
}

function ChartFigure({ title, description, children }: { title: string; description: string; children: ReactNode }) {
  return (
    <Card withBorder component="figure" m={0}>
      <Text fw={600} component="figcaption">
        {title}
        <Text size="xs" c="dimmed" display="block" component="span">
          {description}
        </Text>
      </Text>
      {/* The caption says it in words; the drawing (recharts without its keyboard layer) is for the eyes only. */}
      <div aria-hidden style={{ marginTop: 'var(--mantine-spacing-sm)' }}>
        {children}
      </div>
    </Card>
  );
}

const time = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** When the next snapshot comes, in words ("The next snapshot: around 12:30; sooner after new uploads."). */
export function nextSnapshotText(schedule: SnapshotSchedule | undefined): string | null {
  if (!schedule?.enabled || schedule.nextAt === null) return null;
  const next = Date.parse(schedule.nextAt) <= Date.now() ? 'within a minute' : `around ${time(schedule.nextAt)}`;
  return schedule.early
    ? `The next snapshot: ${next}, or within a minute of new uploads while the series is new.`
    : `The next snapshot: ${next}.`;
}

export function StatsCharts({ schedule }: { schedule?: SnapshotSchedule }) {
  const [span, setSpan] = useState<Span>('7');
  // The start of the span, fixed when the span is chosen (a reload asks for the same one).
  const from = useMemo(() => (span === 'all' ? null : new Date(Date.now() - Number(span) * DAY).toISOString()), [span]);
  const series = useApi((signal) => statsSeries(from, signal), [from]);
  const points = useMemo(() => (series.data ? pointsOf(series.data, span) : []), [series.data, span]);
  const off = series.error instanceof ApiRequestError && series.error.code === 3001;

  const next = nextSnapshotText(schedule);

  let body: ReactNode;
  if (off) {
    body = (
      <Text size="sm" c="dimmed">
        Statistics are turned off on this server. Turn on “Keep statistics snapshots” in the server settings to draw
        these charts.
      </Text>
    );
  } else if (series.error) {
    body = <ErrorAlert error={series.error} onRetry={series.reload} />;
  } else if (!series.data) {
    body = <Skeleton h={220} />;
  } else if (points.length < 2) {
    const only = series.data[0];
    body = (
      <EmptyCard
        icon={<IconChartLine size={28} />}
        title={points.length === 0 ? 'No snapshots in this span yet' : 'One snapshot so far'}
        testId="stats-empty"
      >
        {only
          ? `The charts draw a line from two snapshots on. The first, from ${formatDate(only.createdAt)}, counts ` +
            `${count(only.data.files)} file${only.data.files === 1 ? '' : 's'} and ${formatBytes(only.data.storage)}.`
          : 'A snapshot of the totals is kept regularly; the charts fill as they come.'}{' '}
        {next}
      </EmptyCard>
    );
  } else {
    const latest = series.data[0]!;
    body = (
      <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
        <ChartFigure
          title="Files and short URLs"
          description={`${summary(points, 'files', count, 'Files')}; ${summary(points, 'urls', count, 'short URLs')}`}
        >
          <LineChart
            h={200}
            data={points}
            dataKey="date"
            series={[
              { name: 'files', label: 'Files', color: 'teal.6' },
              { name: 'urls', label: 'Short URLs', color: 'cyan.6' },
            ]}
            curveType="linear"
            withLegend
            valueFormatter={count}
            lineChartProps={NO_KEYBOARD_LAYER}
          />
        </ChartFigure>
        <ChartFigure title="Storage used" description={summary(points, 'storage', formatBytes, 'Storage used')}>
          <AreaChart
            h={200}
            data={points}
            dataKey="date"
            series={[{ name: 'storage', label: 'Storage used', color: 'grape.6' }]}
            curveType="linear"
            valueFormatter={formatBytes}
            yAxisProps={{ width: 70 }}
            areaChartProps={NO_KEYBOARD_LAYER}
          />
        </ChartFigure>
        <ChartFigure
          title="Views"
          description={`${summary(points, 'fileViews', count, 'File views')}; ${summary(points, 'urlViews', count, 'short URL visits')}`}
        >
          <LineChart
            h={200}
            data={points}
            dataKey="date"
            series={[
              { name: 'fileViews', label: 'File views', color: 'orange.6' },
              { name: 'urlViews', label: 'URL visits', color: 'blue.6' },
            ]}
            curveType="linear"
            withLegend
            valueFormatter={count}
            lineChartProps={NO_KEYBOARD_LAYER}
          />
        </ChartFigure>
        <Text size="xs" c="dimmed" style={{ gridColumn: '1 / -1' }}>
          {`${count(points.length)} snapshots`}; the latest from {formatDate(latest.createdAt)}. {next}
        </Text>
      </SimpleGrid>
    );
  }

  return (
    <Stack gap="xs">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Text fw={600} component="h3" size="lg">
          Over time
        </Text>
        <SegmentedControl
          size="xs"
          aria-label="Span of the charts"
          value={span}
          onChange={(value) => setSpan(value as Span)}
          data={SPANS.map((s) => ({ value: s.value, label: s.label }))}
        />
      </Group>
      {body}
    </Stack>
  );
}
