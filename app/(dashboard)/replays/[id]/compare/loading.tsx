import { SplitSkeleton } from "@/components/ui/Skeleton";

export default function Loading() {
  return <SplitSkeleton />;
}
