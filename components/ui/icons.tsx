// Small inline icons (no icon package is installed). Decorative: aria-hidden, the control
// that holds one carries the accessible name.
import type { SVGProps } from "react";

function Icon(props: SVGProps<SVGSVGElement>) {
  return <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" width={16} height={16} {...props} />;
}

export const PlusIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M12 5v14M5 12h14" /></Icon>);
export const TrashIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M4 7h16M10 11v6M14 11v6M6 7l1 12a2 2 0 0 0 2 2h6a2 2 0 0 0 2-2l1-12M9 7V4h6v3" /></Icon>);
export const PencilIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4" /></Icon>);
export const RefreshIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7" /></Icon>);
export const UploadIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M12 16V4M7 9l5-5 5 5M4 20h16" /></Icon>);
export const SendIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M4 12l16-8-6 16-2-7-8-1z" /></Icon>);
export const StopIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><rect x="6" y="6" width="12" height="12" rx="2" /></Icon>);
export const FileIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8l-5-5z" /><path d="M14 3v5h5" /></Icon>);
export const BookIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M4 5a2 2 0 0 1 2-2h13v16H6a2 2 0 0 0-2 2V5z" /><path d="M4 19a2 2 0 0 1 2-2h13" /></Icon>);
export const ChatIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M4 5h16v11H9l-5 4V5z" /></Icon>);
export const HistoryIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M3 12a9 9 0 1 0 3-6.7M3 4v5h5M12 7v5l3 2" /></Icon>);
export const ChevronIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M6 9l6 6 6-6" /></Icon>);
export const CloseIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M6 6l12 12M18 6L6 18" /></Icon>);
export const MenuIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M4 6h16M4 12h16M4 18h16" /></Icon>);
export const AlertIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M12 9v4M12 17h.01M10.3 3.9L2.4 18a2 2 0 0 0 1.7 3h15.8a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" /></Icon>);
export const InfoIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><circle cx="12" cy="12" r="9" /><path d="M12 11v5M12 8h.01" /></Icon>);
export const SparkIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M12 3l1.8 5.2L19 10l-5.2 1.8L12 17l-1.8-5.2L5 10l5.2-1.8z" /></Icon>);
export const UsersIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><circle cx="9" cy="8" r="3.5" /><path d="M2.5 20a6.5 6.5 0 0 1 13 0M16 4.5a3.5 3.5 0 0 1 0 7M21.5 20a6.5 6.5 0 0 0-4-6" /></Icon>);
export const GlobeIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><circle cx="12" cy="12" r="9" /><path d="M3 12h18M12 3a14 14 0 0 1 0 18M12 3a14 14 0 0 0 0 18" /></Icon>);
export const DownloadIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M12 4v12M7 11l5 5 5-5M4 20h16" /></Icon>);
export const ExternalIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M14 4h6v6M20 4l-9 9M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" /></Icon>);
export const CopyIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><rect x="9" y="9" width="11" height="11" rx="2" /><path d="M5 15V5a1 1 0 0 1 1-1h9" /></Icon>);
export const ThumbUpIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M7 11v9H4v-9h3zM7 11l4-7a2 2 0 0 1 2 2v4h5.5a2 2 0 0 1 2 2.3l-1.2 6A2 2 0 0 1 17.3 20H7" /></Icon>);
export const ThumbDownIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><path d="M7 13V4H4v9h3zM7 13l4 7a2 2 0 0 0 2-2v-4h5.5a2 2 0 0 0 2-2.3l-1.2-6A2 2 0 0 0 17.3 4H7" /></Icon>);
export const SearchIcon = (p: SVGProps<SVGSVGElement>) => (<Icon {...p}><circle cx="11" cy="11" r="7" /><path d="M20 20l-4-4" /></Icon>);
